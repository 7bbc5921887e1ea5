"""``reversed(lst)`` of a list: CPython's ``list_reverseiterator`` reads the live list by index from the end, so an
item inserted or removed in the loop moves what the later steps read, and it stops once its index leaves the
list. While the list is unchanged this is a :class:`SnapshotIterator` of the items backwards (rebuilt like one
across a graph break, pass after pass); once the list changed, what is left comes from the live list.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .iterators import SnapshotIterator

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class ReversedListIterator(SnapshotIterator):
    """``reversed()`` of a list variable, reading it live by index."""

    def __init__(self, target: Any) -> None:
        super().__init__(list(reversed(target.items)))
        self.target = target
        #: CPython's index into the live list (-1 once it has let go of it)
        self.position = len(target.items) - 1

    def python_type(self) -> type:
        return type(reversed([]))

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if 0 <= self.position < len(self.target.items):
            item = self.target.items[self.position]
            self.position -= 1
            self.index += 1
            return item
        self.position = -1
        return None

    def _unchanged(self) -> bool:
        held = self.target.items
        return len(held) == len(self.items) and all(a is b for a, b in zip(held, reversed(self.items)))

    def remaining(self) -> list[Variable] | None:
        if self._unchanged():
            return super().remaining()
        held = self.target.items
        return [held[i] for i in range(self.position, -1, -1)] if self.position < len(held) else []

    def live_position(self) -> Any:
        return super().live_position() if self._unchanged() else None
