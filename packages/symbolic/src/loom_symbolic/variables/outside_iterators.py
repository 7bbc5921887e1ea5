"""Iterators from outside the frame (arguments, globals, attributes) that the trace advances: list,
tuple, range and dict iterators whose sequence and position are read through ``__reduce__``; each step is
a side effect replayed on the real iterator after the graph, and across a graph break the real iterator
itself goes on."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import bytecode_helpers
from .iterators import DictIterator, ListIterator, RangeIterator
from .outside_sourced import SourcedIterator

if TYPE_CHECKING:
    from .base import Variable
    from .containers import DictVariable
    from .protocol import Translator as InstructionTranslator


class _FromOutside(SourcedIterator):
    """An iterator from outside the frame (``source``) that the trace advances: each step is a side
    effect (the real iterator is moved after the graph, see ``replay``), and across a graph break the
    real iterator itself goes on."""

    source: object
    real_type: type
    exhausted: bool

    def python_type(self) -> type:
        return self.real_type

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        item = super().next_item(tx)
        if item is None:
            if self.exhausted:
                return None
            self.exhausted = True
        tx.output.side_effects.advanced_iterator(self)
        return item

    def describe(self) -> str:
        return f"{self.real_type.__name__} object"


class PositionedIterator(_FromOutside, ListIterator):
    """A list or tuple iterator from outside the frame: its sequence and position are read (and
    guarded) through its ``__reduce__`` and the trace walks the sequence as :class:`ListIterator` does."""

    def __init__(self, target: Variable, index: int, real_type: type, source: object) -> None:
        super().__init__(target)
        self.index = index
        self.real_type = real_type
        self.source = source
        self.exhausted = False

    def replay(self) -> tuple[Callable[..., None], tuple]:
        """What the rewritten code calls, after the iterator, to move the real one."""
        return bytecode_helpers.reposition_iterator, (self.index, self.exhausted)


class PositionedDictIterator(_FromOutside, DictIterator):
    """A dict's keys or items iterator from outside the frame: the dict it walks (its keys guarded)
    and the keys it will yield are read through the iterator; the trace walks the dict live from there
    as :class:`DictIterator` does, and the real iterator takes as many steps after the graph."""

    def __init__(self, target: DictVariable, kind: str, start: int, real_type: type, source: object) -> None:
        super().__init__(target, kind)
        self.index = self.start = start
        self.real_type = real_type
        self.source = source
        self.exhausted = False

    def replay(self) -> tuple[Callable[..., None], tuple]:
        return bytecode_helpers.advance_iterator, (self.index - self.start, self.exhausted)


class PositionedRangeIterator(_FromOutside, RangeIterator):
    """A range iterator from outside the frame: the range it has left is read (and guarded) through its
    ``__reduce__``; the trace walks it as :class:`RangeIterator` does, and the real iterator takes as many
    steps after the graph (``__setstate__`` is absolute up to 3.11, relative from 3.12: steps are neither)."""

    def __init__(self, left: range, real_type: type, source: object) -> None:
        super().__init__(left)
        self.real_type = real_type
        self.source = source
        self.exhausted = False

    def replay(self) -> tuple[Callable[..., None], tuple]:
        return bytecode_helpers.advance_iterator, (self.index, self.exhausted)
