"""Methods of immutable builtin classes read unbound from the class: ``str.split(s, ",")``, ``str.join("-", parts)``,
``int.bit_length(n)``, ``tuple.index(t, v)``.

Such a method is a C descriptor that cannot be reassigned, and it does no more than the bound method of its
first argument: with every argument a constant it is folded (the descriptor itself runs, so a receiver of the
wrong type raises CPython's own TypeError); with a receiver of exactly that class it is the receiver's own
method, traced as ``s.split(",")`` is. A subclass receiver could override the name, which the unbound
descriptor would skip: that is left to a graph break.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError, args_of
from .base import Variable
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The immutable builtin classes whose unbound methods are modelled (their instances have no state to change).
OWNERS = (str, bytes, int, float, complex, tuple)

#: Builtin iterator classes: ``type(it).__length_hint__(it)`` (``operator.length_hint``'s way) is ``it``'s own
#: method too. An iterator is never a constant, so such a call is never folded.
ITERATOR_OWNERS = tuple({type(iter(empty)) for empty in ([], (), range(0), "", {}, {}.keys(), {}.values(),
                                                          {}.items(), set())} | {type(reversed([]))})

_DESCRIPTORS = (types.MethodDescriptorType, types.WrapperDescriptorType)


def unbound_immutable_method(owner: Any, name: str) -> Variable | None:
    """``owner.name`` when ``owner`` is one of :data:`OWNERS` and the name is a method descriptor of it, else None."""
    if owner not in OWNERS and owner not in ITERATOR_OWNERS:
        return None
    descriptor = getattr(owner, name, None)
    if not isinstance(descriptor, _DESCRIPTORS) or descriptor.__objclass__ is not owner:
        return None  # str.__init__ is object's: not a method of the value
    return UnboundImmutableMethodVariable(owner, name, descriptor)


class UnboundImmutableMethodVariable(Variable):
    """``str.split`` and the like read from the class: a C method descriptor called with its receiver first."""

    #: the descriptor is a real object of a C type, the same one on every run (``int.__add__ is
    #: int.__dict__["__add__"]`` is decided on it)
    wraps_real_object = True

    @property
    def value(self) -> Any:
        return self.descriptor

    def __init__(self, owner: type, name: str, descriptor: Any) -> None:
        self.owner = owner
        self.name = name
        self.descriptor = descriptor

    def python_type(self) -> type:
        return type(self.descriptor)

    def is_python_constant(self) -> bool:
        return True

    def as_python_constant(self) -> Any:
        return self.descriptor

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            return self._fold(args, kwargs)
        receiver = args[0] if args else None
        if receiver is not None and hasattr(receiver, "call_builtin_method") and issubclass(receiver.python_type(), self.owner):
            # an instance of a subclass made in the trace: the base's own method, past the class's overrides
            return receiver.call_builtin_method(tx, self.name, args[1:], kwargs)
        if receiver is None or receiver.python_type() is not self.owner:
            what = receiver.describe() if receiver is not None else "no arguments"
            raise Unsupported(f"{self.describe()} called on {what}", "only a receiver of exactly that class is modelled")
        return receiver.var_getattr(tx, self.name).call(tx, args[1:], kwargs)

    def _fold(self, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        try:
            result = self.descriptor(*(a.as_python_constant() for a in args),
                                     **{k: v.as_python_constant() for k, v in kwargs.items()})
        except Exception as exc:
            raise UserError(f"{self.describe()}() raised {type(exc).__name__}", str(exc),
                            exc_type=type(exc), exc_args=args_of(exc)) from exc
        return wrap_constant_like(result)

    def reconstruct(self, codegen: Any) -> None:
        codegen.load_const(self.descriptor)

    def describe(self) -> str:
        return f"{self.owner.__name__}.{self.name}"
