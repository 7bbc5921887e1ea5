"""``obj.__dict__`` (``vars(obj)``) of an object made while tracing whose class has ``__slots__`` besides a
``__dict__`` (a ``"__dict__"`` slot, or a subclass without ``__slots__``). The trace keeps the slots' values with
the object's other attributes, but the real ``__dict__`` holds only the others: this dict shows those, read
afresh from the object each time (so an attribute stored later shows too). ``d[k] = v`` and ``del d[k]`` are
attribute writes, as on the real dict; another change through the dict is a graph break."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .attributes import kept_slot
from .mappings import InstanceDictVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class SlottedInstanceDictVariable(InstanceDictVariable):
    """The ``__dict__`` of an instance of a class with slots: its attributes other than the slots'."""

    def __init__(self, owner: Variable) -> None:
        super().__init__(owner)

    @property
    def items(self) -> dict[Any, Variable]:
        cls = self.owner.cls
        return {k: v for k, v in self.owner.attrs.items() if not kept_slot(cls, k)}

    @items.setter
    def items(self, value: Any) -> None:
        pass  # always read from the owner

    def _own_key(self, tx: InstructionTranslator, key: Variable) -> str:
        k = self.key_of(key, tx)
        if not isinstance(k, str) or kept_slot(self.owner.cls, k):
            raise Unsupported(f"changing the __dict__ of a {self.owner.cls.__name__} at {k!r}",
                              "a key that is no attribute name, or a slot's name, is not modelled")
        return k

    def setitem(self, tx: InstructionTranslator, key: Variable, value: Variable) -> None:
        self.owner.attrs[self._own_key(tx, key)] = value

    def delitem(self, tx: InstructionTranslator, key: Variable) -> None:
        k = self._own_key(tx, key)
        if k not in self.owner.attrs:
            super().delitem(tx, key)  # the KeyError, as for any dict
        del self.owner.attrs[k]

    def mutated(self, tx: InstructionTranslator) -> None:
        raise Unsupported(f"changing the __dict__ of a {self.owner.cls.__name__} made while tracing",
                          "its class has __slots__: only d[k] = v and del d[k] are modelled")
