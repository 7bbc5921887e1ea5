"""``obj.__eq__(other)`` and ``obj.__ne__(other)`` read off an object made while tracing whose class keeps
``object``'s own: ``object.__eq__`` answers True for the very object and NotImplemented otherwise;
``object.__ne__`` asks the class's ``__eq__`` and inverts a real answer (NotImplemented passes through)."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from . import attributes as _attributes
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

_OWN = {"__eq__": object.__eq__, "__ne__": object.__ne__}


class ObjectSlotMethodVariable(Variable):
    """``object.__eq__`` / ``object.__ne__`` bound to an object made while tracing."""

    def __init__(self, receiver: Variable, cls: type, name: str) -> None:
        self.receiver, self.cls, self.name = receiver, cls, name

    def python_type(self) -> type:
        return types.MethodWrapperType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if len(args) != 1 or kwargs:
            return super().call(tx, args, kwargs)
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
