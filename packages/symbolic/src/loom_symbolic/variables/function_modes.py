"""``TorchFunctionMode`` subclasses entered inside a trace: a symbolic mode stack, ``__torch_function__`` inlined.

``with MyMode():`` runs ``TorchFunctionMode.__enter__``, which pushes the mode with
``torch._C._push_on_torch_function_stack``; ``__exit__`` pops it. The translator keeps those pushes on its own
stack (``OutputGraph.function_modes``) instead of changing the program's state while tracing. While a mode is
on it, every torch call the trace records (a torch function, a tensor method or operator, a factory) is first
handed to the innermost mode as eager would hand it: the mode's ``__torch_function__(func, types, args, kwargs)``
is inlined with the mode taken off the stack for the call (torch pops it while its handler runs), so the ops
it makes go to the next mode or into the graph, and the Python state it changes is modelled like any other.

What eager passes as ``func``, ``types`` and the arguments (``x + 1`` hands over ``Tensor.add``; ``2 * x``
hands ``(x, 2)``) is learnt by a probe: the call is run once on FakeTensors with a mode of loom's own on
torch's real stack that records what it is handed and stops the call there. A probe reached through Python
code that would run other torch calls first (a library function without its own torch-function check) is a
graph break, as is an op the trace makes itself while a mode is on the stack (no ``tx``).

A mode still pushed when the graph ends (a break inside the block, a mode entered and never left) is pushed
for real after the graph, as a replayed side effect, so the rest of the frame runs under it; loom then runs
the resumed frame as it is (``run_as_is``: a foreign mode is active), as eager would.
"""

from __future__ import annotations

import inspect
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import torch
from torch.overrides import TorchFunctionMode

from ..errors import Unsupported
from . import device_ctx as _device_ctx
from . import one_hop_skip as _one_hop
from . import registry
from . import torch_function_state as _torch_function_state
from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .mappings import DictVariable
from .sequences import ListVariable, TupleVariable
from .tensor import TENSOR_METHODS, TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_C = torch._C


@dataclass
class PushMode:
    """The side effect of a mode still pushed when the graph ends: the rewritten code pushes it for real."""

    mode: Variable

    def stage(self, codegen: Any) -> tuple:
        return (codegen.stash(self.mode),)

    def apply(self, codegen: Any, staged: tuple) -> None:
        codegen.load_callable(_C._push_on_torch_function_stack)
        codegen.load_temps(staged)
        codegen.call(1)
        codegen.emit("POP_TOP")

    def describe(self) -> str:
        return f"{self.mode.describe()} pushed on the torch-function mode stack"


@dataclass
class PushedMode:
    """A mode the trace pushed: its variable, the side effect that pushes it for real if it is still
    pushed when the graph ends, and how many default-device regions were open under it."""

    mode: Variable
    effect: PushMode
    device_depth: int


def _push(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    if len(args) != 1 or kwargs:
        raise Unsupported("torch._C._push_on_torch_function_stack() with these arguments", "it takes one mode")
    mode = args[0]
    try:
        is_mode = issubclass(mode.python_type(), TorchFunctionMode)
    except Unsupported:
        is_mode = False
    if not is_mode:
        raise Unsupported("pushing an object that is not a TorchFunctionMode on the torch-function mode stack",
                          "only TorchFunctionMode subclasses are modelled")
    output = tx.output
    if output.device_regions:
        _device_ctx.refuse_beside_function_mode(tx)
    effect = PushMode(mode)
    output.side_effects.effects.append(effect)
    _torch_function_state.mode_stack(output).append(PushedMode(mode, effect, len(output.device_regions)))
    return ConstantVariable(None)


def _pop(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    modes = _torch_function_state.mode_stack(tx.output)
    if args or kwargs:
        raise Unsupported("torch._C._pop_torch_function_stack() with arguments", "it takes none")
    if not modes:
        raise Unsupported("popping a torch-function mode pushed before the trace",
                          "the translator models only the modes the trace itself pushed")
    pushed = modes.pop()
    effects = tx.output.side_effects.effects
    if pushed.effect in effects:  # pushed and popped within one graph: nothing to replay
        effects.remove(pushed.effect)
    else:
        raise Unsupported("popping a torch-function mode the rewritten code has pushed", "not modelled")
    return pushed.mode


def _real_depth(tx: InstructionTranslator) -> int:
    """The depth of torch's own stack as the program sees it (the trace's default-device regions included)."""
    return _C._len_torch_function_stack() + len(tx.output.device_regions)


def _length(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    set_aside = _torch_function_state.modes_set_aside(tx.output)
    return ConstantVariable(_real_depth(tx) + len(tx.output.function_modes) + set_aside)


def _stack_at(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    if len(args) != 1 or kwargs or not args[0].is_python_constant():
        raise Unsupported("torch._C._get_function_stack_at() with these arguments", "not modelled")
    index, depth, modes = args[0].as_python_constant(), _real_depth(tx), tx.output.function_modes
    if tx.output.torch_function_all_disabled:
        raise Unsupported("torch._C._get_function_stack_at() inside a DisableTorchFunction block", "not modelled")
    if tx.output.device_regions or depth or not isinstance(index, int) or not -len(modes) <= index < len(modes):
        raise Unsupported("torch._C._get_function_stack_at() below the modes the trace pushed",
                          "the translator models only the modes the trace itself pushed")
    return modes[index].mode


def _mode_enabled(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    if tx.output.torch_function_all_disabled:
        return ConstantVariable(False)
    return ConstantVariable(bool(_real_depth(tx) or tx.output.function_modes))


def _has_torch_function(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    return ConstantVariable(True)


#: Whether a call would be handed to ``__torch_function__``: yes while the trace holds a mode (torch asks
#: before handing a Python function's call over), or an argument hands it over (:data:`OVERLOADS`), else the
#: ordinary op, folded.
_HAS_TORCH_FUNCTION = {fn: _has_torch_function for fn in (
    _C._has_torch_function, _C._has_torch_function_unary, _C._has_torch_function_variadic)}

#: Checks ``(tx, variable) -> bool`` of whether a value hands torch calls to a Python ``__torch_function__``
#: (filled by :mod:`.tensor_subclasses`: the graph sees its subclass tensors as plain ones, so the folded query
#: would answer False for them).
OVERLOADS: list[Any] = []


def _queried(tx: InstructionTranslator, query: Any, args: list[Variable]) -> list[Variable]:
    """The values a has_torch_function query asks about: the items of its one iterable, or its arguments."""
    if query is not _C._has_torch_function:
        return args
    try:
        return list(args[0].unpack(tx)) if len(args) == 1 else []
    except Unsupported:
        return []


def _hands_over(tx: InstructionTranslator, query: Any, args: list[Variable]) -> bool:
    return any(check(tx, value) for value in _queried(tx, query, args) for check in OVERLOADS)


#: The stack's builtins → how the trace answers them (from torch's stack and the trace's own).
_HANDLERS = {
    _C._push_on_torch_function_stack: _push,
    _C._pop_torch_function_stack: _pop,
    _C._len_torch_function_stack: _length,
    _C._get_function_stack_at: _stack_at,
    _C._is_torch_function_mode_enabled: _mode_enabled,
    _C._skip_one_hop_torch_function: _one_hop.skip_one_hop,
    _C._peek_should_skip_torch_function: _one_hop.peek,
}


class ModeStackFunctionVariable(RealValueVariable):
    """One of torch's mode-stack builtins: pushes and pops change the trace's stack, queries answer from it."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        handler = _HANDLERS.get(self.value)
        if handler is None:  # a has_torch_function query
            if (skipped := _one_hop.consume_query(tx)) is not None:
                return skipped  # redispatch_function's skip, used up
            if tx.output.function_modes or (not kwargs and _hands_over(tx, self.value, args)):
                return _HAS_TORCH_FUNCTION[self.value](tx, args, kwargs)
            return tx.output.call_function(tx, self.value, args, kwargs)
        return handler(tx, args, kwargs)

    def describe(self) -> str:
        return f"torch function {self.value.__name__}"


#: Builtins the wrap rules (:mod:`.wrap_rules`) wrap with :class:`ModeStackFunctionVariable`.
FUNCTIONS = frozenset(_HANDLERS) | frozenset(_HAS_TORCH_FUNCTION)


# -- dispatch ------------------------------------------------------------------------------------------
class _Handed(BaseException):
    """Raised by the probe: what eager would hand the innermost mode (a BaseException: no ``except
    Exception`` in torch's Python code on the way catches it)."""

    def __init__(self, func: Any, types: Any, args: Any, kwargs: Any, frames: list[Any]) -> None:
        super().__init__()
        self.handed = (func, types, tuple(args), None if kwargs is None else dict(kwargs))
        self.frames = frames


class _Probe(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        frames, frame = [], sys._getframe(1)
        while frame is not None and frame.f_code is not _PROBE_CALL:
            frames.append(frame)
            frame = frame.f_back
        raise _Handed(func, types, args, kwargs, frames)


def _probe_call(run: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    _C._push_on_torch_function_stack(_Probe())
    try:
        return run(*args, **kwargs) if kwargs else run(*args)  # no keywords: torch hands the mode None
    finally:
        _C._pop_torch_function_stack()


_PROBE_CALL = _probe_call.__code__
#: Files whose frames only pass a call on to the modes (``handle_torch_function``, Tensor's operator wrappers).
_PASSING_FILES = ("torch/overrides.py", "torch/_tensor.py", "torch\\overrides.py", "torch\\_tensor.py")


def _passes_on(frame: Any, func: Any, run: Any) -> bool:
    code = frame.f_code
    return (code is getattr(func, "__code__", None) or code is getattr(run, "__code__", None)
            or code.co_filename.endswith(_PASSING_FILES))


def handed_call(output: Any, run: Any, examples: list[Any], kwarg_examples: dict[str, Any]) -> tuple | None:
    """What eager hands the innermost mode for ``run(*examples, **kwarg_examples)``, or None if it hands it nothing."""
    written = len(output.fake_mode.written)
    try:
        with output.fake_mode:
            _probe_call(run, examples, kwarg_examples)
    except _Handed as handed:
        func = handed.handed[0]
        if not all(_passes_on(frame, func, run) for frame in handed.frames):
            name = getattr(run, "__qualname__", None) or repr(run)
            raise Unsupported(f"{name} under a TorchFunctionMode entered in the trace",
                              "Python code runs before the mode is handed the call") from None
        return handed.handed
    except Exception:
        return None  # the op fails as it would in eager: the ordinary path says how
    finally:
        del output.fake_mode.written[written:]
    return None


def method_caller(name: str) -> Any:
    """``lambda self, *args, **kwargs: self.name(*args, **kwargs)``, what the probe runs for a method call."""
    def call(self: Any, *args: Any, **kwargs: Any) -> Any:
        method = getattr(self, name)
        return method(*args, **kwargs) if kwargs else method(*args)

    return call


def attribute_getter(name: str) -> Any:
    """``lambda self: self.name``, what the probe runs for an attribute read."""
    def get(self: Any) -> Any:
        return getattr(self, name)

    return get


def _dispatch_attribute(tx: InstructionTranslator, tensor: Variable, name: str) -> Variable | None:
    return dispatch(tx, tx.output, attribute_getter(name), [tensor], {})


class TensorAttributeGetVariable(RealValueVariable):
    """The ``__get__`` of a tensor attribute's descriptor (what eager hands a mode for ``x.shape``): called
    on a tensor, it reads the attribute."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if len(args) not in (1, 2) or kwargs:
            return super().call(tx, args, kwargs)
        return args[0].var_getattr(tx, self.value.__self__.__name__)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in ("__name__", "__qualname__"):
            return ConstantVariable(getattr(self.value, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"Tensor.{self.value.__self__.__name__}.__get__"


class TensorDescriptorVariable(RealValueVariable):
    """A tensor attribute's descriptor read off the class (``torch.Tensor.ndim``): its ``__get__`` is what eager
    hands a ``__torch_function__`` for a read of the attribute (``if func == torch.Tensor.ndim.__get__:``)."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__get__":
            return TensorAttributeGetVariable(self.value.__get__)
        if name in ("__name__", "__qualname__"):
            return ConstantVariable(getattr(self.value, name))
        return super().var_getattr(tx, name)


def _is_tensor_descriptor(value: Any) -> bool:
    return type(value) is _GETSET and getattr(value, "__objclass__", None) in (torch._C.TensorBase, torch.Tensor)


def _is_tensor_attribute_get(value: Any) -> bool:
    return type(value) is _METHOD_WRAPPER and value.__name__ == "__get__" and _is_tensor_descriptor(value.__self__)


_GETSET, _METHOD_WRAPPER = type(torch.Tensor.ndim), type(torch.Tensor.ndim.__get__)
registry.add_rule(555, _is_tensor_descriptor, lambda tx, value, source: TensorDescriptorVariable(value, source))
registry.add_rule(556, _is_tensor_attribute_get, lambda tx, value, source: TensorAttributeGetVariable(value, source))


def function_variable(tx: InstructionTranslator, func: Any) -> Variable:
    """The variable for the ``func`` eager hands a ``__torch_function__`` (a descriptor's ``__get__`` for a read)."""
    owner = getattr(func, "__self__", None)
    if (type(func).__name__ == "method-wrapper" and func.__name__ == "__get__"
            and getattr(owner, "__objclass__", None) in (torch._C.TensorBase, torch.Tensor)):
        return TensorAttributeGetVariable(func)
    return registry.wrap(tx, func, None)


def _object_hands_calls(cls: type) -> bool:
    """Whether instances of ``cls``, not a tensor class, take torch calls: a classmethod ``__torch_function__``."""
    return (isinstance(cls, type) and not issubclass(cls, torch.Tensor)
            and isinstance(inspect.getattr_static(cls, "__torch_function__", None), classmethod))


def object_class(value: Variable) -> type | None:
    """The class of ``value`` if it is an object (not a tensor) whose class takes torch calls, else None."""
    if isinstance(value, (TensorVariable, ConstantVariable, ListVariable, TupleVariable, DictVariable)):
        return None
    try:
        cls = value.python_type()
    except Unsupported:
        return None
    return cls if _object_hands_calls(cls) else None


class _Stand:
    """What the probe is given for an object whose class takes torch calls: torch's argument parser accepts it
    as an overloaded argument (it has a ``__torch_function__``), so the probe mode is handed the call."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        return NotImplemented


def example(value: Variable) -> Any:
    """What stands for ``value`` in the probe's call: a :class:`_Stand` for an object taking torch calls (in a list
    or tuple too)."""
    if object_class(value) is not None:
        return _Stand()
    if isinstance(value, (ListVariable, TupleVariable)) and any(object_class(i) is not None for i in value.items):
        made = [example(item) for item in value.items]
        return made if isinstance(value, ListVariable) else tuple(made)
    return value.as_example()


def _real_types(types: Any, handed: list[Any], pairs: list[tuple[Any, Variable]]) -> Any:
    """``types`` as eager hands them to a mode: the probe saw FakeTensors (a method's ``self`` is always
    overloaded) and :class:`_Stand` objects; each overloaded argument ``handed`` is mapped back, through ``pairs``,
    to its variable's class, in the order eager collects them."""
    found: list[type] = []
    seen: set[type] = set()
    for value in _flat(handed):
        variable = next((v for example, v in pairs if example is value), None)
        if type(value) in types or getattr(variable, "hands_calls", False):  # a subclass tensor: a plain fake here
            if variable is None:
                raise Unsupported("a TorchFunctionMode handed an argument the trace cannot name", "not modelled")
            seen.add(type(value))
            if (cls := variable.python_type()) not in found:
                found.append(cls)
    if not seen.issuperset(types) or any(a is not b and issubclass(a, b) for a in found for b in found):
        raise Unsupported("the types a TorchFunctionMode is handed for these arguments",
                          "their order (a subclass before its base) is not modelled")
    return tuple(found)


def _flat(values: Any) -> list[Any]:
    out: list[Any] = []
    for value in values:
        out += _flat(value) if isinstance(value, (list, tuple)) else [value]
    return out


def _item_pairs(examples: list[Any], variables: list[Variable]) -> list[tuple[Any, Variable]]:
    """``(example, variable)`` for the call's arguments and the items of its list and tuple arguments."""
    pairs = []
    for example, variable in zip(examples, variables):
        pairs.append((example, variable))
        if isinstance(example, (list, tuple)) and isinstance(variable, (ListVariable, TupleVariable)):
            pairs += _item_pairs(list(example), list(variable.items))
    return pairs


def variable_for(value: Any, pairs: list[tuple[Any, Variable]]) -> Variable:
    """The variable for an argument eager hands on: the call's own (``pairs`` of example and variable), or a constant."""
    for example, variable in pairs:
        if value is example:
            return variable
    if isinstance(value, (bool, int, float, complex, str, type(None), torch.dtype, torch.device)):
        return ConstantVariable(value)
    raise Unsupported(f"a {type(value).__name__} handed to a TorchFunctionMode", "not one of the call's arguments")


def dispatch(tx: InstructionTranslator | None, output: Any, run: Any, args: list[Variable],
             kwargs: dict[str, Variable]) -> Variable | None:
    """``run(*args, **kwargs)`` handed to the innermost mode the trace pushed (its ``__torch_function__``
    inlined), or None when eager would not hand it to a mode (record it as an ordinary op)."""
    _one_hop.refuse_while_set(output, "a torch call")
    if tx is None:
        name = getattr(run, "__qualname__", None) or repr(run)
        raise Unsupported(f"{name} made by the translator under a TorchFunctionMode", "the mode would not see it")
    examples = [example(a) for a in args]
    kwarg_examples = {k: example(v) for k, v in kwargs.items()}
    handed = handed_call(output, run, examples, kwarg_examples)
    if handed is None:
        return None
    func, types, handed_args, handed_kwargs = handed
    pairs = _item_pairs([*examples, *kwarg_examples.values()], [*args, *kwargs.values()])
    types = _real_types(types, [*handed_args, *(handed_kwargs or {}).values()], pairs)
    modes = output.function_modes
    pushed = modes[-1]
    if len(output.device_regions) > pushed.device_depth:
        raise Unsupported("a torch call in a torch.device block inside a TorchFunctionMode block",
                          "the device context would handle the call before the mode")
    call_args = [function_variable(tx, func), registry.wrap_constant_like(types),
                 TupleVariable([variable_for(a, pairs) for a in handed_args]),
                 ConstantVariable(None) if handed_kwargs is None else
                 DictVariable({k: variable_for(v, pairs) for k, v in handed_kwargs.items()})]
    modes.pop()
    try:
        result = pushed.mode.call_method(tx, "__torch_function__", call_args, {})
    finally:
        modes.append(pushed)
    if result.is_python_constant() and result.as_python_constant() is NotImplemented:
        raise Unsupported("a TorchFunctionMode returning NotImplemented", "not modelled")
    return result


TENSOR_METHODS.update(mode_attribute=_dispatch_attribute)
_device_ctx.DISPATCH_UNDER_MODES.append(dispatch)  # torch.device(...) is handed to modes too
