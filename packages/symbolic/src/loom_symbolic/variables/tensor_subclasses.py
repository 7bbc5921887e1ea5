"""Tensor subclasses whose ``__torch_function__`` runs Python (``class T(torch.Tensor)`` with its own
``__torch_function__``, or none: ``torch.Tensor.__torch_function__`` rewraps every result as ``T``).

Such a tensor is a :class:`SubclassTensorVariable`: a graph tensor (the graph itself only ever sees plain
tensors: an input of class ``T`` is handed to it as ``x.as_subclass(torch.Tensor)``) that knows its class.
Every op eager hands to ``T.__torch_function__`` (a torch function, a tensor method, an operator) is handed to
it in the trace too (:func:`dispatch`): what eager passes as ``func``, ``types`` and the arguments is learnt
by the probe of :mod:`.function_modes`, and ``T.__torch_function__`` is inlined; ``super().__torch_function__``
is the stand-in of ``polyfills.torch_function``, which runs ``func`` with subclass dispatch off and makes its
tensor results ``T`` again with ``as_subclass``. A tensor of class ``T`` that leaves the graph is rebuilt by the
rewritten code with ``as_subclass(T)``.

Reads of tensor attributes (``t.shape``, ``t.grad``) and ``len(t)`` are handed over as eager hands them. An
object that is no tensor but whose class has a classmethod ``__torch_function__`` (a wrapper holding a tensor),
given to a torch function (in a list too), has the call handed to it the same way (the probe sees a stand-in of
that kind in its place), and ``has_torch_function`` answers True for it and for subclass tensors.
Iteration runs ``Tensor.__iter__``'s ``dim()`` and ``unbind(0)``, handed over. Not modelled, each a graph break
naming the subclass: ops mixing two such subclasses, a
``__torch_function__`` that is not a classmethod, a subclass with a ``__torch_dispatch__`` (:func:`modelled`),
and a higher-order op's body (:func:`.higher_order.trace_body`: a sub-graph keeps no class). Subclasses that switch
``__torch_function__`` off (``nn.Parameter``, ``FakeTensor``, ``DTensor``) behave as plain tensors there and
are wrapped as they always were; one made in the trace (``as_subclass``, ``_make_subclass``) is a
:class:`QuietSubclassTensorVariable`, which keeps its class and hands nothing over.

``tensor.as_subclass(torch.Tensor)`` is an ``aten.alias`` node (eager gives a new plain tensor aliasing the
receiver, ``AliasBackward0`` its ``grad_fn``); ``tensor.as_subclass(T)`` the same node, its result of class ``T``.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported, UserError
from . import function_modes as _modes
from . import one_hop_skip as _one_hop
from . import registry
from .base import Variable
from .constant import ConstantVariable
from .mappings import DictVariable
from .methods import BoundMethodVariable
from .sequences import ListVariable, TupleVariable
from .tensor import METHOD_HANDLERS, TENSOR_METHODS, TensorVariable, plain_class_value

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: What torch calls without handing it to any ``__torch_function__`` (``Tensor.as_subclass``).
_IGNORED = frozenset(torch.overrides.get_ignored_functions())
_WHY = "the trace does not model this for a tensor subclass's __torch_function__"


def runs_python_torch_function(cls: type) -> bool:
    """Whether ops on instances of tensor class ``cls`` call a ``__torch_function__`` written in Python."""
    return cls is not torch.Tensor and getattr(cls, "__torch_function__", None) is not torch._C._disabled_torch_function_impl


def modelled(cls: type) -> bool:
    """Whether tensors of class ``cls`` are :class:`SubclassTensorVariable`: a ``__torch_function__`` classmethod
    of Python (its own or Tensor's) and no ``__torch_dispatch__``."""
    own = next((klass.__dict__["__torch_function__"] for klass in cls.__mro__ if "__torch_function__" in klass.__dict__),
               None)
    return (runs_python_torch_function(cls) and isinstance(own, classmethod)
            and getattr(cls, "__torch_dispatch__", None) is torch._C._disabled_torch_dispatch_impl)


def quiet(cls: type) -> bool:
    """Whether ``cls`` switches ``__torch_function__`` off (``__torch_function__ = _disabled_torch_function_impl``,
    no ``__torch_dispatch__``): ops on its tensors give plain tensors, handed to nothing. ``nn.Parameter``'s own
    family is wrapped as it always was."""
    return (issubclass(cls, torch.Tensor) and cls is not torch.Tensor and not issubclass(cls, torch.nn.Parameter)
            and getattr(cls, "__torch_function__", None) is torch._C._disabled_torch_function_impl
            and getattr(cls, "__torch_dispatch__", None) is torch._C._disabled_torch_dispatch_impl)


def _plain(value: torch.Tensor) -> torch.Tensor:
    """What the graph receives for a subclass input: the same data as a plain tensor."""
    return value.as_subclass(torch.Tensor)


class SubclassTensorVariable(TensorVariable):
    """A graph tensor whose Python class ``cls`` runs a ``__torch_function__`` of its own."""

    mutable = True  # rebuilt once (``as_subclass`` makes a new object each time): names holding it share it
    hands_calls = True

    def reconstruct(self, codegen: Any) -> None:
        super().reconstruct(codegen)
        if self.source is None or self.node.op != "placeholder":  # an input handed back is itself
            codegen.emit("LOAD_METHOD", "as_subclass")
            codegen.load_const(self.cls)
            codegen.call(1)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        for klass in self.cls.__mro__:
            if klass is torch.Tensor:
                break
            if name in klass.__dict__:
                # a plain class value is hidden by the instance's own entry (a tag set on it), as in Python
                if plain_class_value(self.cls, name) and (tag := self.instance_tag(tx, name)) is not None:
                    return tag
                return class_member(tx, self, klass, name)
        if not hasattr(torch.Tensor, name) and (tag := self.instance_tag(tx, name)) is not None:
            return tag  # a tag: Python's generic lookup reads it, no __torch_function__ is asked
        if self.real is not None and name in getattr(self.real, "__dict__", {}):
            raise Unsupported(f"attribute {name!r} of a {self.cls.__qualname__} instance", _WHY)
        if self.hands_calls and tx.output.torch_function_enabled and not callable(getattr(torch.Tensor, name, None)) \
                and hasattr(torch.Tensor, name):
            handled = dispatch(tx, tx.output, _modes.attribute_getter(name), [self], {})
            if handled is not None:  # eager hands the read of a tensor attribute over too
                return handled
            raise Unsupported(f"tensor attribute {name!r} of a {self.cls.__qualname__}", _WHY,
                              hint="eager hands the read to its __torch_function__")
        return super().var_getattr(tx, name)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        """``iter(t)``: ``Tensor.__iter__``'s ``self.dim()`` and ``iter(self.unbind(0))``, each handed over."""
        dim = self.call_method(tx, "dim", [], {})
        if not dim.is_python_constant():
            raise Unsupported(f"iteration over a {self.cls.__qualname__}", "its dim() is not a constant")
        if dim.as_python_constant() == 0:
            message = "iteration over a 0-d tensor"
            raise UserError(message, message, exc_type=TypeError, exc_args=(message,))
        return self.call_method(tx, "unbind", [ConstantVariable(0)], {}).unpack(tx)

    def describe(self) -> str:
        return f"{self.cls.__qualname__} {self.node.name}"


class QuietSubclassTensorVariable(SubclassTensorVariable):
    """A graph tensor made in the trace whose class ``cls`` switched ``__torch_function__`` off (:func:`quiet`):
    its class's own members are read as :class:`SubclassTensorVariable`'s are, but nothing is handed over."""

    hands_calls = False


def class_member(tx: InstructionTranslator, tensor: SubclassTensorVariable, klass: type, name: str) -> Variable:
    """``tensor.name`` found in subclass ``klass``'s ``__dict__``: a method bound to it, a property's value, or a
    plain class attribute (guarded through the class it was found on)."""
    found = klass.__dict__[name]
    owner = registry.wrap(tx, klass, None)
    if isinstance(found, types.FunctionType):
        return BoundMethodVariable(owner.var_getattr(tx, name), tensor)
    if isinstance(found, property) and found.fget is not None:
        return registry.wrap(tx, found.fget, None).call(tx, [tensor], {})
    if isinstance(found, classmethod):  # bound to the tensor's own class, not to the one defining it
        return BoundMethodVariable(registry.wrap(tx, found.__func__, None), registry.wrap(tx, tensor.cls, None))
    if isinstance(found, staticmethod) or not hasattr(type(found), "__get__"):
        return owner.var_getattr(tx, name)
    raise Unsupported(f"attribute {name!r} of a {klass.__qualname__}", f"a {type(found).__name__} is not modelled")


def make_subclass_tensor(tx: InstructionTranslator, tensor: TensorVariable, cls: type,
                         op: Any = torch.ops.aten.alias.default) -> SubclassTensorVariable:
    """``tensor.as_subclass(cls)``: an ``aten.alias`` node (or ``op``'s: ``_make_subclass`` detaches) whose result
    is of class ``cls`` (a :func:`quiet` class's hands nothing over)."""
    made = untouched(tx, op, tensor)
    tx.output.subclass_tensors += 1
    kind = QuietSubclassTensorVariable if quiet(cls) else SubclassTensorVariable
    return kind(made.node, made.example, cls=cls)


def untouched(tx: InstructionTranslator, op: Any, tensor: TensorVariable) -> TensorVariable:
    """An ``op`` node (``aten.alias``, ``aten.detach``) of ``tensor``, never handed to a ``__torch_function__``
    (it stands for ``as_subclass`` or ``_make_subclass``, which torch never hands over)."""
    output, enabled = tx.output, tx.output.torch_function_enabled
    output.torch_function_enabled = False
    try:
        return output.call_function(tx, op, [tensor], {})
    finally:
        output.torch_function_enabled = enabled


def wrap_subclass_input(tx: InstructionTranslator, value: torch.Tensor, source: Any) -> TensorVariable:
    """The variable for a subclass tensor read from the frame (the graph gets it as a plain tensor); a class
    this module does not model is refused."""
    if not modelled(type(value)):
        raise Unsupported(f"a tensor of subclass {type(value).__qualname__}", "a tensor of this class is not modelled",
                          hint="ops on it run outside the compiled graph")
    variable = tx.output.add_tensor_input(value, source, convert=_plain, make=SubclassTensorVariable)
    tx.output.subclass_tensors += 1
    return variable


def _overloaded(values: list[Variable], found: list[type]) -> None:
    """The classes of the subclass tensors and of the objects whose class takes torch calls among ``values`` (and
    the items of lists and tuples), in order."""
    for value in values:
        if isinstance(value, SubclassTensorVariable) and value.hands_calls:
            if value.cls not in found:
                found.append(value.cls)
        elif isinstance(value, (ListVariable, TupleVariable)):
            _overloaded(list(value.items), found)
        elif (cls := _modes.object_class(value)) is not None and cls not in found:
            found.append(cls)


def _ignored(run: Any) -> bool:
    try:
        return run in _IGNORED
    except TypeError:  # an unhashable callable: not one of torch's
        return False


def dispatch(tx: InstructionTranslator | None, output: Any, run: Any, args: list[Variable],
             kwargs: dict[str, Variable]) -> Variable | None:
    """``run(*args, **kwargs)`` handed to the ``__torch_function__`` of the subclass tensor among its arguments
    (inlined), or None when eager would not hand it over (no such argument, dispatch switched off)."""
    _one_hop.refuse_while_set(output, "a torch call")
    if not output.torch_function_enabled:
        return None
    if not output.subclass_tensors and all(isinstance(a, (TensorVariable, ConstantVariable))
                                           for a in [*args, *kwargs.values()]):
        return None  # the common call: nothing to hand over
    classes: list[type] = []
    _overloaded([*args, *kwargs.values()], classes)
    if not classes or _ignored(run):
        return None
    name = getattr(run, "__qualname__", None) or repr(run)
    if tx is None:
        raise Unsupported(f"{name} made by the translator on a {classes[0].__qualname__}", _WHY)
    if len(classes) > 1:
        raise Unsupported(f"{name} on tensors of subclasses {', '.join(c.__qualname__ for c in classes)}", _WHY)
    cls = classes[0]
    examples = [_modes.example(a) for a in args]
    kwarg_examples = {k: _modes.example(v) for k, v in kwargs.items()}
    handed = _modes.handed_call(output, run, examples, kwarg_examples)
    if handed is None:
        return None
    func, _, handed_args, handed_kwargs = handed
    pairs = list(zip([*examples, *kwarg_examples.values()], [*args, *kwargs.values()]))
    owner = registry.wrap(tx, cls, None)
    call_args = [_modes.function_variable(tx, func), TupleVariable([owner]),
                 TupleVariable([_modes.variable_for(a, pairs) for a in handed_args]),
                 ConstantVariable(None) if handed_kwargs is None else
                 DictVariable({k: _modes.variable_for(v, pairs) for k, v in handed_kwargs.items()})]
    result = owner.call_method(tx, "__torch_function__", call_args, {})
    if result.is_python_constant() and result.as_python_constant() is NotImplemented:
        raise Unsupported(f"{cls.__qualname__}.__torch_function__ returning NotImplemented", "not modelled")
    return result


def _dispatch_method(tx: InstructionTranslator, tensor: TensorVariable, name: str, args: list[Variable],
                     kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.name(...)`` on a subclass tensor, handed to its ``__torch_function__`` as eager hands it (not a
    method torch never hands over, such as ``as_subclass``)."""
    if getattr(torch.Tensor, name, None) in _IGNORED:
        return None
    return dispatch(tx, tx.output, _modes.method_caller(name), [tensor, *args], kwargs)


def as_subclass(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                kwargs: dict[str, Variable]) -> Variable | None:
    """``tensor.as_subclass(cls)``: an ``aten.alias`` node, of class ``cls`` (None, the generic path, for any
    other call: a wrong one raises there as in eager)."""
    given = args[0] if len(args) == 1 and not kwargs else kwargs.get("cls") if set(kwargs) == {"cls"} and not args \
        else None
    if given is None or not given.is_python_constant():
        return None
    cls = given.as_python_constant()
    if cls is torch.Tensor:
        return untouched(tx, torch.ops.aten.alias.default, tensor)
    if isinstance(cls, type) and issubclass(cls, torch.Tensor):
        if not (modelled(cls) or quiet(cls)):
            raise Unsupported(f"Tensor.as_subclass({cls.__qualname__})", "a tensor of this class is not modelled",
                              hint="ops on the result run outside the compiled graph")
        return make_subclass_tensor(tx, tensor, cls)
    return None


def _hands_over(tx: InstructionTranslator, value: Variable) -> bool:
    """Whether ``value`` is a subclass tensor whose ``__torch_function__`` eager would call now."""
    takes_calls = (isinstance(value, SubclassTensorVariable) and value.hands_calls) or _modes.object_class(value) is not None
    return takes_calls and tx.output.torch_function_enabled


METHOD_HANDLERS["as_subclass"] = as_subclass
_modes.OVERLOADS.append(_hands_over)
TENSOR_METHODS["subclass_method"] = _dispatch_method
