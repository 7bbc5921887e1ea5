"""torch functions and tensor methods: which go into the graph, which fold, which break."""

from __future__ import annotations

import operator
import sys
import types
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from .. import program_state
from ..errors import Unsupported, UserError, missing_attribute
from ..shapes import is_symbolic
from . import containers as _containers
from . import default_dtype as _default_dtype
from . import deterministic_switch as _deterministic
from . import device_ctx as _device_ctx
from . import folded_queries as _folded_queries
from . import function_modes as _function_modes
from . import made_leaves as _made_leaves
from . import numpy as _numpy
from . import numpy_to_tensor as _numpy_to_tensor
from . import one_hop_skip as _one_hop
from . import out_resizes as _out_resizes
from . import small_tensors as _small_tensors
from . import tensor_from_items as _tensor_from_items
from .base import RealValueVariable, Variable
from .compile_calls import is_compile_wrapper
from .constant import ConstantVariable, FrozenObjectVariable
from .functions import function_attribute
from .registry import wrap, wrap_constant_like
from .tensor import (
    METADATA_METHODS,
    METHOD_HANDLERS,
    TENSOR_METHODS,
    TensorVariable,
    guard_unmatched_metadata,
    opaque_method_reason,
)

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


#: C namespaces whose functions are tensor operations.
_TORCH_C_NAMESPACES = tuple(
    ns for ns in (
        getattr(torch._C, "_VariableFunctions", None), getattr(torch._C, "_nn", None),
        getattr(torch._C, "_linalg", None), getattr(torch._C, "_fft", None), getattr(torch._C, "_special", None),
        getattr(torch._C, "_nested", None), getattr(torch._C, "_sparse", None),
    ) if ns is not None
)
#: Python modules whose functions are recorded as single graph ops rather than inlined.
GRAPH_OP_MODULES = ("torch.nn.functional", "torch.functional", "torch.linalg", "torch.fft", "torch.special",
                    "torch._tensor", "torch.nn.init")
#: torch callables that change state outside tensors or leave the graph's world: never recorded.
_NOT_IN_GRAPH = {
    torch.seed: "sets the global random seed",
    torch.set_default_dtype: "changes the dtype every later op is typed by (a constant dtype is traced)",
    torch.set_default_device: "changes the device every later factory op uses",
    torch.use_deterministic_algorithms: "changes global state",
    torch.set_printoptions: "changes global state",
    torch.set_num_threads: "changes global state",
    torch.save: "does I/O",
    torch.load: "does I/O",
    torch.compile: "compiles another function",
    # autograd's engine runs on the real tensors where the graph cannot record the call
    # (RECORDED_WHERE_MODELLED); torch.compile breaks on both (trace_autograd_ops is off by default)
    torch.autograd.grad: "runs autograd outside the graph",
    torch.autograd.backward: "runs autograd outside the graph",
}
#: Of those, the ones after which the rest of the frame runs as it is (one graph break, not one per
#: call): every later op's dtype or device depends on the new default, and a backend that traces the
#: graph again (AOTAutograd) would type it by the default of its own trace, not the program's.
_REST_AS_IS = frozenset({torch.set_default_dtype, torch.set_default_device})
#: Of those, the ones a module below records in the graph where it can (``torch.autograd.backward``:
#: :mod:`.tensor_backward`; ``torch.autograd.grad``: :mod:`.autograd_grad`): a handler returns the
#: call's result, or None to break as above.
RECORDED_WHERE_MODELLED: dict[Any, Any] = {}
#: Name prefixes (leading underscores aside) of torch builtins outside the op namespaces that change
#: global state: ``set_autocast_enabled``, ``_set_default_dtype``, ``_enter_dual_level``,
#: ``_push_saved_tensors_default_hooks``...
_STATE_CHANGING_PREFIXES = ("set_", "unset_", "enter_", "exit_", "push_", "pop_")
#: Others (autocast's ``__enter__`` and ``__exit__`` call them).
_STATE_CHANGING_BUILTINS = frozenset({"autocast_increment_nesting", "autocast_decrement_nesting", "clear_autocast_cache"})
#: C modules whose every function acts outside the graph: ``torch._C._functorch`` pushes and pops
#: torch.func's interpreter stack (``_grad_increment_nesting``) and wraps tensors for a transform level;
#: run while tracing, such a call would change the program's state (and never be undone).
_OUTSIDE_GRAPH_C_MODULES = {
    "torch._C._functorch": "is torch.func's transform machinery (it changes functorch's interpreter stack "
    "or the tensors' transform levels)",
}
#: torch functions answered from the translator's own state (the attribute of the output graph that holds it).
_STATE_QUERIES = {torch.is_grad_enabled: "grad_enabled", torch.is_inference_mode_enabled: "inference_mode",
                  torch._C._is_torch_function_enabled: "torch_function_enabled",
                  torch._C._is_torch_function_all_disabled: "torch_function_all_disabled"}


def _compiling_queries() -> dict[Any, bool]:
    """"Am I being compiled?" functions libraries call to pick a traceable code path: while loom traces,
    the answer is yes (loom is a Dynamo-style tracer); it is never exporting."""
    import torch._utils

    table: dict[Any, bool] = {}
    for owner, name, answer in (
        (torch.compiler, "is_compiling", True),
        (torch.compiler, "is_dynamo_compiling", True),
        (torch.compiler, "is_exporting", False),
        (torch._utils, "is_compiling", True),
    ):
        fn = getattr(owner, name, None)
        if fn is not None:
            table[fn] = answer
    return table


TRACE_TIME_CONSTANTS = _compiling_queries()


def is_graph_op(fn: Any) -> bool:
    """Whether calling ``fn`` on tensors is recorded as one FX node."""
    try:
        if fn in _NOT_IN_GRAPH:
            return False
    except TypeError:  # unhashable
        return False
    if _opaque_tensor_method(fn) is not None:
        return False
    if isinstance(fn, (torch._ops.OpOverloadPacket, torch._ops.OpOverload)):
        return True
    if isinstance(fn, types.BuiltinFunctionType):
        owner = getattr(fn, "__self__", None)
        if owner is not None and any(owner is ns for ns in _TORCH_C_NAMESPACES):
            return True
        return (getattr(fn, "__module__", None) or "").startswith("torch") and not _changes_global_state(fn)
    if isinstance(fn, (types.MethodDescriptorType, types.WrapperDescriptorType)):
        return getattr(fn, "__objclass__", None) in (torch._C.TensorBase, torch.Tensor)
    if isinstance(fn, types.FunctionType):
        module = fn.__module__ or ""
        return any(module == p or module.startswith(p + ".") for p in GRAPH_OP_MODULES) and _found_by_name(fn)
    return False


def _found_by_name(fn: types.FunctionType) -> bool:
    """Whether ``fn`` is reachable as ``module.qualname``, how a graph's code names its targets (``Tensor.__pow__``
    is a ``TensorBase.pow`` of ``torch._tensor`` that no name reaches: such a function is inlined instead)."""
    module = sys.modules.get(fn.__module__ or "")
    if getattr(module, fn.__name__, None) is fn:
        return True
    found = module
    for part in fn.__qualname__.split("."):
        found = getattr(found, part, None)
    return found is fn


def _changes_global_state(fn: types.BuiltinFunctionType) -> bool:
    """A torch builtin that sets global state (``torch.set_autocast_enabled``, ``torch._C._set_default_dtype``):
    as a graph op it would run once, while tracing, and leave no node (it returns None)."""
    name = fn.__name__
    changes = name.lstrip("_").startswith(_STATE_CHANGING_PREFIXES) or name in _STATE_CHANGING_BUILTINS
    return changes and fn is not torch._C._set_grad_enabled


def _opaque_tensor_method(fn: Any) -> str | None:
    """Why ``fn``, a tensor method read off the class, breaks as its method call does (None: it is none such)."""
    name = getattr(fn, "__name__", None)
    reason = opaque_method_reason(name) if type(name) is str else None
    return reason if reason is not None and getattr(torch.Tensor, name, None) is fn else None


def not_in_graph_reason(fn: Any) -> str | None:
    """Why ``fn`` is refused, when it is one of the torch functions that act outside the graph."""
    try:
        reason = _NOT_IN_GRAPH.get(fn)
    except TypeError:
        return None
    if reason is None and (opaque := _opaque_tensor_method(fn)) is not None:
        return opaque  # a tensor method read off the class (``torch.Tensor.backward(t)``): as the method call
    if reason is not None or not isinstance(fn, types.BuiltinFunctionType) or program_state.is_query(fn):
        return reason
    module = getattr(fn, "__module__", None) or ""
    if module in _OUTSIDE_GRAPH_C_MODULES:
        return _OUTSIDE_GRAPH_C_MODULES[module]
    if module.startswith("torch") and _changes_global_state(fn):
        return "changes global state"
    return None


class NotInGraphFunctionVariable(RealValueVariable):
    """A torch function that acts outside the graph (:func:`not_in_graph_reason`): calling it is a graph
    break, so it runs for real, between compiled graphs, at every call."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        name = getattr(self.value, "__qualname__", None) or repr(self.value)
        module = getattr(self.value, "__module__", None) or ""
        if module.startswith("torch") and "." not in name and "pybind11" not in name:
            name = f"{module}.{name}"  # torch.autograd.grad, not a bare grad
        if "pybind11" in name:  # pybind11's functions are qualified by an internal record type: use the module
            name = f"{getattr(self.value, '__module__', None) or 'torch'}.{self.value.__name__}"
        if (switch := _deterministic.HANDLERS.get(self.value)) and (done := switch(tx, args, kwargs)) is not None:
            return done  # a constant mode: a graph node, and the trace's record of it
        if self.value is torch.set_default_dtype and (done := _default_dtype.set_default(tx, args, kwargs)) is not None:
            return done  # a constant dtype: tracked by the trace, replayed after the graph
        if (recorder := RECORDED_WHERE_MODELLED.get(self.value)) and (done := recorder(tx, args, kwargs)) is not None:
            return done
        if self.value in _REST_AS_IS:
            error = Unsupported(f"{name}()", not_in_graph_reason(self.value) or "acts outside the graph",
                                hint="it and the rest of the function run as ordinary Python")
            error.reason.rest_as_is = True
            raise error
        raise Unsupported(f"{name}()", not_in_graph_reason(self.value) or "acts outside the graph",
                          hint="it runs as ordinary Python, between compiled graphs")

    def describe(self) -> str:
        return f"torch function {getattr(self.value, '__name__', self.value)}"


def _disable_dynamo_code() -> types.CodeType | None:
    """The code of the wrapper ``torch._disable_dynamo`` puts around a function (``Optimizer.zero_grad``)."""
    disable = getattr(torch, "_disable_dynamo", None)
    return disable(lambda: None).__code__ if disable is not None else None


_DISABLE_DYNAMO_CODE = _disable_dynamo_code()


def is_dynamo_disabled(fn: Any) -> bool:
    """Whether ``fn`` is torch's ``_disable_dynamo`` wrapper (torch says its function must not be traced),
    or the wrapper ``torch._dynamo.disable`` made (``_torchdynamo_orig_callable`` is what it wraps; its
    ``recursive=False`` form is made in ``external_utils.py``)."""
    code = getattr(fn, "__code__", None)
    if _DISABLE_DYNAMO_CODE is not None and code is _DISABLE_DYNAMO_CODE:
        return True
    return (getattr(fn, "_torchdynamo_orig_callable", None) is not None and code is not None
            and code.co_filename.endswith(_DISABLE_WRAPPER_FILES))


_DISABLE_WRAPPER_FILES = tuple(f"_dynamo{sep}{name}.py" for sep in "/\\" for name in ("eval_frame", "external_utils"))


#: Functions torch wraps in ``torch._disable_dynamo`` only to spare dynamo the time of tracing them ("slow,
#: and doesn't provide any benefits", pytorch PR 88731, about ``zero_grad``), not because tracing them would
#: be wrong. What they do (reading ``p.grad``, setting it to None or zeroing it) loom models, so it traces
#: what they wrap: a training step's ``opt.step(); opt.zero_grad()`` then costs no graph break.
_TRACED_DESPITE_DISABLE: tuple[Any, ...] = (torch.optim.Optimizer.zero_grad,)
#: Functions whose disabled wrapper, wherever torch makes one, loom traces: ``torch.manual_seed``, which importing
#: ``torch._dynamo`` wraps, is modelled (:mod:`.torch_rng_calls`).
_WRAPPED_AND_TRACED: tuple[Any, ...] = (torch.random.manual_seed,)


def traced_original(fn: Any) -> tuple[Any, str] | None:
    """What loom traces in place of the disabled wrapper ``fn``, and the attribute of ``fn`` that holds it:

    - an entry of :data:`_TRACED_DESPITE_DISABLE`, or a wrapper of one of :data:`_WRAPPED_AND_TRACED`: the
      function it wraps (``__wrapped__``);
    - the ``torch._dynamo.disable`` that dynamo's own ``TorchPatcher`` puts around every optimizer's
      ``_init_group`` the first time dynamo compiles (dynamo then models the call itself): the original,
      as loom traces it before dynamo ever ran (``_torchdynamo_orig_callable``);
    - the wrapper ``torch.compile(f)`` made: ``f`` (``_torchdynamo_inline``), joining the caller's graph.

    None for any other function: a call to it is a graph break."""
    if any(fn is traced for traced in _TRACED_DESPITE_DISABLE):
        return fn.__wrapped__, "__wrapped__"
    if any(getattr(fn, "__wrapped__", None) is traced for traced in _WRAPPED_AND_TRACED):
        return fn.__wrapped__, "__wrapped__"
    if is_compile_wrapper(fn):  # torch.compile(f) made before the frame: f is traced, as dynamo inlines it
        return fn._torchdynamo_inline, "_torchdynamo_inline"
    original = getattr(fn, "_torchdynamo_orig_callable", None)
    if (original is not None and getattr(original, "__name__", None) == "_init_group"
            and (getattr(original, "__module__", None) or "").startswith("torch.optim")):
        return original, "_torchdynamo_orig_callable"
    return None


class DynamoDisabledFunctionVariable(RealValueVariable):
    """A function torch wraps in ``torch._disable_dynamo`` (``Optimizer.zero_grad``, ``Optimizer.add_param_group``):
    a call is a graph break at the caller, and the function runs natively as one call, as torch asks."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        wrapped = getattr(self.value, "__wrapped__", None) or getattr(self.value, "_torchdynamo_orig_callable", self.value)
        name = getattr(wrapped, "__qualname__", None) or repr(wrapped)
        raise Unsupported(f"call to {name}", "torch marks it with torch._disable_dynamo: it runs natively, as one call",
                          hint="it runs as ordinary Python, between compiled graphs")

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """The wrapper is a plain function: its metadata and what ``functools.wraps`` and torch set on it
        (``__wrapped__``, ``_torchdynamo_orig_callable``) are read as any function's."""
        if isinstance(self.value, types.FunctionType) and name != "__class__":
            return function_attribute(tx, self.value, self.source, name)
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        wrapped = getattr(self.value, "__wrapped__", self.value)
        return f"{getattr(wrapped, '__qualname__', wrapped)} (torch._disable_dynamo)"


class TracedDisabledFunctionVariable(DynamoDisabledFunctionVariable):
    """A disabled wrapper loom traces through all the same (:func:`traced_original`): a call traces the function
    it wraps; everything else (identity, being returned or stored, its attributes) sees the wrapper."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        original, attribute = traced_original(self.value)
        return wrap(tx, original, Attr(self.source, attribute) if self.source is not None else None).call(tx, args, kwargs)


class TorchFunctionVariable(RealValueVariable):
    """A torch function (``torch.sin``, ``F.relu``, ``torch.ops.aten.add``): calls become graph nodes."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if (switch := _deterministic.HANDLERS.get(self.value)) and (done := switch(tx, args, kwargs)) is not None:
            return done  # torch.use_deterministic_algorithms and the queries of what it set
        if self.value in _STATE_QUERIES:
            return ConstantVariable(getattr(tx.output, _STATE_QUERIES[self.value]))
        if self.value is torch.get_default_dtype:
            return _default_dtype.get_default(tx)
        if self.value in TRACE_TIME_CONSTANTS:
            return ConstantVariable(TRACE_TIME_CONSTANTS[self.value])
        if program_state.is_query(self.value):
            if tx.output.transform_depth and self.value in program_state.FUNCTORCH_QUERIES:
                raise Unsupported(f"{self.describe()} inside a torch.func transform's function",
                                  "it reads the transform's level, which the traced function does not see")
            with _device_ctx.in_regions(tx.output):  # a torch.device block's mode is on the stack
                return _program_state_query(self.value, args, kwargs)
        if self.value in _FOREACH_WITH_SCALAR_TENSOR and len(args) == 4 and not kwargs and isinstance(args[3], TensorVariable):
            return _foreach_with_scalar_tensor(tx, self.value, args)
        if self.value is torch._C._set_grad_enabled:
            # What grad-mode context managers call on exit: the translator tracks the mode itself.
            tx.output.set_grad_enabled(tx, bool(args[0].as_python_constant()))
            return ConstantVariable(None)
        if args and getattr(args[0], "numpy_value", False):  # torch.from_numpy(array) of an array made in the trace
            converted = _numpy_to_tensor.torch_call(tx, self.value, args, kwargs)
            if converted is not None:
                return converted
        requires_grad = kwargs.get("requires_grad")
        if requires_grad is not None and (not requires_grad.is_python_constant() or requires_grad.as_python_constant()):
            # A graph cannot return a leaf of its own: the leaf is made before the graph and filled in it
            # (made_leaves); what that does not model breaks, as eager's result must require grad.
            leaf = _made_leaves.factory_leaf(tx, self.value, args, kwargs) \
                if requires_grad.is_python_constant() and requires_grad.as_python_constant() is True else None
            if leaf is not None:
                return leaf
            raise Unsupported(f"{self.describe()}(..., requires_grad=True)",
                              "a tensor made inside the graph that requires grad is not modelled")
        if self.value is torch.tensor and (made := _tensor_from_items.tensor_of_items(tx, args, kwargs)) is not None:
            return made
        resizable = _out_resizes.out_inputs(tx, kwargs["out"]) if "out" in kwargs else None
        result = tx.output.call_function(tx, self.value, args, kwargs)
        if resizable:  # an input the op resized: a resize_ of its own before the op (AOTAutograd needs it)
            _out_resizes.record_resizes(tx, resizable)
        _folded_queries.guard_folded_query(tx, self.value, args, kwargs, result)
        if self.value in (torch.tensor, torch.as_tensor):  # shape arithmetic: torch.tensor(x.shape).tolist()
            _small_tensors.remember_data(args, kwargs, result)
        return result

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """The function's names and docstring (a TorchFunctionMode logs ``func.__name__``, ``functools.wraps``
        copies them): fixed by its identity. A torch function written in Python reads the rest as any
        function does; a C one has no other attribute a program could set, so one it lacks is Python's
        AttributeError (``update_wrapper`` reads ``__annotations__`` and ``__dict__`` that way)."""
        value = self.value
        if name in _NAME_ATTRIBUTES and isinstance(getattr(value, name, None), str):
            return ConstantVariable(getattr(value, name))
        if name == "__doc__" and isinstance(getattr(value, name, None), (str, type(None))):
            return ConstantVariable(value.__doc__)
        if isinstance(value, types.FunctionType) and name != "__class__":
            return function_attribute(tx, value, self.source, name)
        if isinstance(value, types.BuiltinFunctionType) and not hasattr(value, name):
            raise missing_attribute(f"'{type(value).__name__}' object", name)
        if ((isinstance(value, torch._ops.OpOverloadPacket) and isinstance(getattr(value, name, None), torch._ops.OpOverload))
                or (isinstance(value, torch._ops.OpOverload) and name == "overloadpacket")):
            # torch.ops.aten.mm.default (a graph op, or a policy's set member) and back: fixed by the object read
            return wrap(tx, getattr(value, name), Attr(self.source, name) if self.source is not None else None)
        if isinstance(value, torch._ops.OpOverload) and name in ("_overloadname", "_opname", "_namespace"):
            return ConstantVariable(getattr(value, name))
        if isinstance(value, torch._ops.OpOverload) and name in ("name", "_schema"):  # op.name(), its schema: folded
            return FrozenObjectVariable(getattr(value, name))
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"torch function {getattr(self.value, '__name__', self.value)}"


_NAME_ATTRIBUTES = frozenset({"__name__", "__qualname__", "__module__"})
_NOT_AN_ARGUMENT = object()


def _query_argument(value: Variable) -> Any:
    """A constant, or a ``torch._C._TorchDispatchModeKey`` member (an immutable singleton)."""
    if value.is_python_constant():
        return value.as_python_constant()
    real = getattr(value, "value", None) if isinstance(value, RealValueVariable) else None
    return real if isinstance(real, torch._C._TorchDispatchModeKey) else _NOT_AN_ARGUMENT


def _program_state_query(fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """A query of the mode stacks or functorch's level, answered as eager would (:mod:`..program_state`)."""
    name = getattr(fn, "__name__", repr(fn))
    if not all(_query_argument(a) is not _NOT_AN_ARGUMENT for a in [*args, *kwargs.values()]):
        raise Unsupported(f"{name}() with arguments known only at run time", "not modelled")
    try:
        result = program_state.answer(fn, tuple(_query_argument(a) for a in args),
                                      {k: _query_argument(v) for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"{name} raised {type(exc).__name__}", str(exc), exc_type=type(exc)) from exc
    if result is not None and not isinstance(result, (bool, int)):
        raise Unsupported(f"{name}()", f"returns the program's {type(result).__name__}, which the translator "
                          "does not model", hint="it runs as ordinary Python, between compiled graphs")
    return ConstantVariable(result)


#: foreach ops taking their per-tensor scalars as one tensor (Adam's step sizes while compiling): their
#: kernel reads those numbers, which FakeTensors (and so AOTAutograd, on static shapes) cannot.
#: name → (in place, combine ``scalar * first`` with ``second``).
_FOREACH_WITH_SCALAR_TENSOR = {
    fn: spec for fn, spec in (
        (getattr(torch, "_foreach_addcdiv_", None), (True, torch.div)),
        (getattr(torch, "_foreach_addcmul_", None), (True, torch.mul)),
        (getattr(torch, "_foreach_addcdiv", None), (False, torch.div)),
        (getattr(torch, "_foreach_addcmul", None), (False, torch.mul)),
    ) if fn is not None
}


def _foreach_with_scalar_tensor(tx: InstructionTranslator, fn: Any, args: list[Variable]) -> Variable:
    """``torch._foreach_addcdiv_(selves, firsts, seconds, scalars)`` as the per-tensor ops its kernel does,
    ``self + scalars[i] * first / second`` (``* second`` for addcmul), in that order."""
    in_place, combine = _FOREACH_WITH_SCALAR_TENSOR[fn]
    lists = [getattr(a, "items", None) for a in args[:3]]
    if any(not isinstance(items, list) for items in lists) or len({len(items) for items in lists}) != 1:
        return tx.output.call_function(tx, fn, args, {})  # let the op itself say what is wrong
    scalars = args[3]
    results = []
    for i, (this, first, second) in enumerate(zip(*lists)):
        scalar = tx.output.call_function(tx, operator.getitem, [scalars, ConstantVariable(i)], {})
        term = tx.output.call_function(tx, combine, [tx.output.call_function(tx, torch.mul, [scalar, first], {}), second], {})
        if in_place:
            tx.output.call_method(tx, "add_", [this, term], {})
        else:
            results.append(tx.output.call_function(tx, torch.add, [this, term], {}))
    return ConstantVariable(None) if in_place else _containers.ListVariable(results)


#: ``self.addcdiv_(first, second, value=v)`` with ``v`` a 0-d tensor (Adam's step size while compiling):
#: eager reads the number out of ``v``; FakeTensors cannot. name → (in place, how ``first`` meets ``second``).
_ADDC_WITH_SCALAR_TENSOR = {"addcdiv_": (True, torch.div), "addcmul_": (True, torch.mul),
                            "addcdiv": (False, torch.div), "addcmul": (False, torch.mul)}  # fmt: skip


def _addc_with_scalar_tensor(
    tx: InstructionTranslator, tensor: TensorVariable, name: str, args: list[Variable], kwargs: dict[str, Variable]
) -> Variable:
    """``self + value * first / second`` (``* second`` for addcmul), the order of ATen's kernel."""
    if set(kwargs) != {"value"}:
        return tx.output.call_method(tx, name, [tensor, *args], kwargs)  # let the op itself say what is wrong
    in_place, combine = _ADDC_WITH_SCALAR_TENSOR[name]
    first, second = args
    term = tx.output.call_function(tx, combine, [tx.output.call_function(tx, torch.mul, [kwargs["value"], first], {}), second], {})
    if in_place:
        tx.output.call_method(tx, "add_", [tensor, term], {})
        return tensor
    return tx.output.call_function(tx, torch.add, [tensor, term], {})


class TensorMethodVariable(Variable):
    """``tensor.method`` before it is called."""

    def __init__(self, tensor: TensorVariable, name: str) -> None:
        self.tensor = tensor
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return call_tensor_method(tx, self.tensor, self.name, args, kwargs)

    def python_type(self) -> type:
        # the kind eager binds: a C method (builtin_function_or_method) or a Python one (method)
        return type(getattr(self.tensor.example, self.name))

    def truth(self, tx: InstructionTranslator) -> bool:
        return True  # a bound method is always true (``if x.is_complex:`` without the call)

    def reconstruct(self, codegen) -> None:
        codegen.reconstruct(self.tensor)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"Tensor.{self.name}"


def wrap_bound_tensor_method(tx: InstructionTranslator, value: Any, source: Any) -> Variable | None:
    """A C method of a tensor read from the frame (``y.add`` passed in as a callable): the tensor's method as
    the trace reads it, under guards on the tensor (through ``__self__``) and on the method's name. None for
    any other builtin method, or one without a source."""
    receiver = getattr(value, "__self__", None)
    if source is None or tx is None or not isinstance(receiver, torch.Tensor) \
            or not callable(getattr(torch.Tensor, value.__name__, None)):
        return None
    tx.output.guards.add("type", source, value)
    tx.output.guards.add("constant", Attr(source, "__name__"), value.__name__)
    tensor = wrap(tx, receiver, Attr(source, "__self__"))
    return tensor.var_getattr(tx, value.__name__)


def call_tensor_method(
    tx: InstructionTranslator, tensor: TensorVariable, name: str, args: list[Variable], kwargs: dict[str, Variable]
) -> Variable:
    """``tensor.name(*args, **kwargs)``: metadata folds, opaque methods break, the rest are graph ops."""
    _one_hop.refuse_while_set(tx.output, f"Tensor.{name}")
    if tx.output.function_modes:  # handed to the innermost TorchFunctionMode the trace pushed, as in eager
        handled = _function_modes.dispatch(tx, tx.output, _function_modes.method_caller(name), [tensor, *args], kwargs)
        if handled is not None:
            return handled
    if tx.output.subclass_tensors and (handled := TENSOR_METHODS["subclass_method"](tx, tensor, name, args, kwargs)):
        return handled  # handed to a tensor subclass's __torch_function__ (variables.tensor_subclasses)
    if name in METADATA_METHODS:
        if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            raise Unsupported(f"Tensor.{name} with arguments known only at run time", "not modelled")

        constant_args = [a.as_python_constant() for a in args]
        if name == "size" and not kwargs:
            size = tensor.size(tx)
            if not constant_args:
                return size
            return size.getitem(tx, ConstantVariable(constant_args[0]))
        try:
            result = getattr(tensor.example, name)(*constant_args,
                                                   **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as exc:

            raise UserError(f"Tensor.{name} raised {type(exc).__name__}", str(exc), exc_type=type(exc)) from exc
        values = result if isinstance(result, tuple) else (result,)
        if any(is_symbolic(v) for v in values):
            return tx.output.call_method(tx, name, [tensor, *args], kwargs)  # e.g. numel() of a dynamic tensor
        if name == "storage_offset":
            guard_unmatched_metadata(tx, tensor, name)
        if isinstance(result, torch.Size):
            return _containers.SizeVariable.of(result)
        return wrap_constant_like(result)
    if name == "numpy":
        return _numpy.tensor_numpy(tx, tensor, args, kwargs)
    if name in ("tolist", "item", "__index__") and not args and not kwargs:
        known = _small_tensors.read_data(tx, tensor, name)
        if known is not None:
            return known
    handler = METHOD_HANDLERS.get(name)
    if handler is not None and (result := handler(tx, tensor, args, kwargs)) is not None:
        return result
    reason = opaque_method_reason(name)
    if reason is not None:
        raise Unsupported(f"Tensor.{name}()", reason,
                          hint="this runs outside the compiled graph" if name != "item" else
                          "keep the value as a 0-d tensor, or move this out of the compiled function")
    if name == "type" and not args and not kwargs:
        return ConstantVariable(tensor.example.type())
    if name in _ADDC_WITH_SCALAR_TENSOR and isinstance(kwargs.get("value"), TensorVariable) and len(args) == 2:
        return _addc_with_scalar_tensor(tx, tensor, name, args, kwargs)
    result = tx.output.call_method(tx, name, [tensor, *args], kwargs)
    if name.endswith("_") and not name.endswith("__"):
        return tensor  # in-place methods return the tensor they changed
    return result


TENSOR_METHODS.update(variable=TensorMethodVariable, call=call_tensor_method)
