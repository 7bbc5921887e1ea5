"""``object``'s own methods read off an object made while tracing whose class keeps them (``obj.__eq__``,
``getattr(obj, "__hash__")``): bound method-wrappers, callable. Called, ``object.__eq__`` answers True for the
very object and NotImplemented otherwise, and ``object.__ne__`` asks the class's ``__eq__`` and inverts a real
answer (NotImplemented passes through); a call of another is a graph break."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from . import attributes as _attributes
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .slot_errors import object_init_refusal

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: ``object``'s own methods, by name: read off an object they are method-wrappers (callable, bound to it);
#: ``__eq__``/``__ne__`` are answered when called, the others are a graph break where called
_OWN = {name: member for name, member in vars(object).items()
        if isinstance(member, (types.WrapperDescriptorType, types.MethodDescriptorType, types.BuiltinFunctionType))}


class ObjectSlotMethodVariable(Variable):
    """One of ``object``'s own methods bound to an object made while tracing."""

    def __init__(self, receiver: Variable, cls: type, name: str) -> None:
        self.receiver, self.cls, self.name = receiver, cls, name

    def python_type(self) -> type:
        # a slot wrapper binds as a method-wrapper; a method descriptor (and the static __new__) as a builtin method
        wrapper = isinstance(_OWN[self.name], types.WrapperDescriptorType)
        return types.MethodWrapperType if wrapper else types.BuiltinMethodType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.name == "__init__":  # object.__init__ does nothing, but refuses arguments as CPython does
            refusal = object_init_refusal(self.cls) if args or kwargs else None
            if refusal is not None:
                raise refusal
            return ConstantVariable(None)
        if self.name not in ("__eq__", "__ne__") or len(args) != 1 or kwargs:
            raise Unsupported(f"calling object.{self.name} of {self.receiver.describe()}", "not modelled")
        (other,) = args
        if self.name == "__eq__" or _attributes.class_attribute(self.cls, "__eq__") is object.__eq__:
            if _operators.is_same(tx, self.receiver, other):
                return ConstantVariable(self.name == "__eq__")
            return ConstantVariable(NotImplemented)
        answer = self.receiver.call_method(tx, "__eq__", [other], {})
        if answer.is_python_constant() and answer.as_python_constant() is NotImplemented:
            return answer
        return ConstantVariable(not answer.truth(tx))

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.receiver)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"method-wrapper {self.name} of {self.receiver.describe()}"


def _object_method(tx: InstructionTranslator, view: Any, name: str) -> Variable | None:
    own = _OWN.get(name)
    if own is None or _attributes.class_attribute(view.cls, name) is not own or view.real is not _attributes._MISSING:
        return None
    return ObjectSlotMethodVariable(view.receiver, view.cls, name)


_attributes.OBJECT_METHOD_MAKERS.append(_object_method)
