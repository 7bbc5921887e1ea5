"""``prop.__get__(obj)``, ``prop.__set__(obj, v)``, ``prop.__delete__(obj)`` called by name on a real ``property``
(``C.x.__set__(a, 100)``): its getter, setter or deleter called with the object, as the C methods do. A missing
accessor (CPython's AttributeError, worded per version) is left to a graph break."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from ..errors import Unsupported
from . import attributes as _attributes
from .base import Variable
from .constant import ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

_ACCESSORS = {"__get__": ("fget", 1), "__set__": ("fset", 2), "__delete__": ("fdel", 1)}


class PropertyMethodVariable(Variable):
    """``__get__``/``__set__``/``__delete__`` of a real ``property``, bound to it."""

    def __init__(self, receiver: Variable, prop: property, name: str) -> None:
        self.receiver, self.prop, self.name = receiver, prop, name

    def python_type(self) -> type:
        return types.MethodWrapperType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        field, count = _ACCESSORS[self.name]
        if kwargs or not count <= len(args) <= (2 if self.name == "__get__" else count):
            raise Unsupported(f"property.{self.name} with these arguments", "CPython's TypeError, natively")
        obj = args[0]
        if self.name == "__get__" and obj.is_python_constant() and obj.as_python_constant() is None:
            return self.receiver  # read off the class: the property itself
        accessor = getattr(self.prop, field)
        if accessor is None:
            raise Unsupported(f"property.{self.name} without {field}", "CPython's AttributeError, worded per version")
        source = Attr(self.receiver.source, field) if self.receiver.source is not None else None
        result = wrap(tx, accessor, source).call(tx, [obj, *args[1:count]], {})
        return result if self.name == "__get__" else ConstantVariable(None)

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.receiver)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"property.{self.name}"


def _property_method(tx: InstructionTranslator, view: Any, name: str) -> Variable | None:
    if name not in _ACCESSORS or type(view.real) is not property:
        return None
    return PropertyMethodVariable(view.receiver, view.real, name)


_attributes.OBJECT_METHOD_MAKERS.append(_property_method)
