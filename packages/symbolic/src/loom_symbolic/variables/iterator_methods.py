"""Methods read from an iterator the trace holds: ``it.__iter__``, ``it.__next__`` and
``it.__length_hint__``, bound to it (``__self__`` is the iterator, as ``heapq.merge`` reads it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .iterators import IteratorVariable
    from .protocol import Translator as InstructionTranslator


class IteratorMethodVariable(Variable):
    """``it.__iter__``, ``it.__next__`` or ``it.__length_hint__`` of an iterator the trace holds."""

    def __init__(self, iterator: IteratorVariable, name: str) -> None:
        self.iterator = iterator
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            raise Unsupported(f"{self.name} of {self.iterator.describe()} with arguments", "not modelled")
        if self.name == "__length_hint__":  # what is left, where that is known without running anything
            if (items := self.iterator.remaining()) is None:
                raise Unsupported(f"__length_hint__ of {self.iterator.describe()}", "its length is not known")
            return ConstantVariable(len(items))
        return self.iterator if self.name == "__iter__" else self.iterator.next_or_stop(tx)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__self__":  # the bound method's receiver: the iterator itself
            return self.iterator
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"{self.name} of {self.iterator.describe()}"
