"""``Cls.__subclasses__()`` for a class the trace reads from a source, whose metaclass is ``type``: the live
subclasses now, as a new list of the classes, guarded by asking again (its length, and each item by identity):
the entry is reused while the class has the same subclasses (a class made or collected since recompiles)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Called, Item

from ..errors import Unsupported
from .base import Variable
from .registry import wrap
from .sequences import ListVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


class SubclassesMethodVariable(Variable):
    """``Cls.__subclasses__``, bound to a class with a source."""

    def __init__(self, cls: type, source: Any) -> None:
        self.cls = cls
        self.source = Attr(source, "__subclasses__")

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            raise Unsupported(f"{self.cls.__qualname__}.__subclasses__ with arguments", "eager's TypeError")
        asked = Called(self.source)
        found = type.__subclasses__(self.cls)
        tx.output.guards.add("length", asked, found)
        return ListVariable([wrap(tx, klass, Item(asked, i)) for i, klass in enumerate(found)])

    def describe(self) -> str:
        return f"{self.cls.__qualname__}.__subclasses__"
