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

Reads of tensor attributes (``t.shape``, ``t.grad``) and ``len(t)`` are handed over as eager hands them.
Not modelled, each a graph break naming the subclass: iteration over one, ops mixing two such subclasses, a
``__torch_function__`` that is not a classmethod, a subclass with a ``__torch_dispatch__`` (:func:`modelled`),
and a higher-order op's body (:func:`.higher_order.trace_body`: a sub-graph keeps no class). Subclasses that switch
``__torch_function__`` off (``nn.Parameter``, ``FakeTensor``, ``DTensor``) behave as plain tensors there and
are wrapped as they always were.

``tensor.as_subclass(torch.Tensor)`` is an ``aten.alias`` node (eager gives a new plain tensor aliasing the
receiver, ``AliasBackward0`` its ``grad_fn``); ``tensor.as_subclass(T)`` the same node, its result of class ``T``.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from . import function_modes as _modes
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
                return _class_member(tx, self, klass, name)
        if not hasattr(torch.Tensor, name) and (tag := self.instance_tag(tx, name)) is not None:
            return tag  # a tag: Python's generic lookup reads it, no __torch_function__ is asked
        if self.real is not None and name in getattr(self.real, "__dict__", {}):
            raise Unsupported(f"attribute {name!r} of a {self.cls.__qualname__} instance", _WHY)
        if tx.output.torch_function_enabled and not callable(getattr(torch.Tensor, name, None)) \
                and hasattr(torch.Tensor, name):
            handled = dispatch(tx, tx.output, _modes.attribute_getter(name), [self], {})
            if handled is not None:  # eager hands the read of a tensor attribute over too
                return handled
            raise Unsupported(f"tensor attribute {name!r} of a {self.cls.__qualname__}", _WHY,
                              hint="eager hands the read to its __torch_function__")
        return super().var_getattr(tx, name)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        raise Unsupported(f"iteration over a {self.cls.__qualname__}", _WHY)

    def describe(self) -> str:
        return f"{self.cls.__qualname__} {self.node.name}"


def _class_member(tx: InstructionTranslator, tensor: SubclassTensorVariable, klass: type, name: str) -> Variable:
    """``tensor.name`` found in subclass ``klass``'s ``__dict__``: a method bound to it, a property's value, or a
    plain class attribute (guarded through the class it was found on)."""
    found = klass.__dict__[name]
    owner = registry.wrap(tx, klass, None)
    if isinstance(found, types.FunctionType):
        return BoundMethodVariable(owner.var_getattr(tx, name), tensor)
    if isinstance(found, property) and found.fget is not None:
        return registry.wrap(tx, found.fget, None).call(tx, [tensor], {})
    if isinstance(found, (staticmethod, classmethod)) or not hasattr(type(found), "__get__"):
        return owner.var_getattr(tx, name)
    raise Unsupported(f"attribute {name!r} of a {klass.__qualname__}", f"a {type(found).__name__} is not modelled")


def make_subclass_tensor(tx: InstructionTranslator, tensor: TensorVariable, cls: type) -> SubclassTensorVariable:
    """``tensor.as_subclass(cls)``: an ``aten.alias`` node whose result is of class ``cls``."""
    alias = _alias(tx, tensor)
    tx.output.subclass_tensors += 1
    return SubclassTensorVariable(alias.node, alias.example, cls=cls)


def _alias(tx: InstructionTranslator, tensor: TensorVariable) -> TensorVariable:
    """An ``aten.alias`` node of ``tensor``, never handed to a ``__torch_function__`` (it stands for
    ``as_subclass``, which torch never hands over)."""
    output, enabled = tx.output, tx.output.torch_function_enabled
    output.torch_function_enabled = False
    try:
        return output.call_function(tx, torch.ops.aten.alias.default, [tensor], {})
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
    """The classes of the subclass tensors among ``values`` (and the items of lists and tuples), in order."""
    for value in values:
        if isinstance(value, SubclassTensorVariable):
            if value.cls not in found:
                found.append(value.cls)
        elif isinstance(value, (ListVariable, TupleVariable)):
            _overloaded(list(value.items), found)


def dispatch(tx: InstructionTranslator | None, output: Any, run: Any, args: list[Variable],
             kwargs: dict[str, Variable]) -> Variable | None:
    """``run(*args, **kwargs)`` handed to the ``__torch_function__`` of the subclass tensor among its arguments
    (inlined), or None when eager would not hand it over (no such argument, dispatch switched off)."""
    if not output.torch_function_enabled or run in _IGNORED:
        return None
    classes: list[type] = []
    _overloaded([*args, *kwargs.values()], classes)
    if not classes:
        return None
    name = getattr(run, "__qualname__", None) or repr(run)
    if tx is None:
        raise Unsupported(f"{name} made by the translator on a {classes[0].__qualname__}", _WHY)
    if len(classes) > 1:
        raise Unsupported(f"{name} on tensors of subclasses {', '.join(c.__qualname__ for c in classes)}", _WHY)
    cls = classes[0]
    examples = [a.as_example() for a in args]
    kwarg_examples = {k: v.as_example() for k, v in kwargs.items()}
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
        return _alias(tx, tensor)
    if isinstance(cls, type) and issubclass(cls, torch.Tensor):
        if not modelled(cls):
            raise Unsupported(f"Tensor.as_subclass({cls.__qualname__})", "a tensor of this class is not modelled",
                              hint="ops on the result run outside the compiled graph")
        return make_subclass_tensor(tx, tensor, cls)
    return None


METHOD_HANDLERS["as_subclass"] = as_subclass
TENSOR_METHODS["subclass_method"] = _dispatch_method
