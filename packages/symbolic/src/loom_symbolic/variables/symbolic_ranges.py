"""A ``range`` loop resumed after a graph break, at a symbolic position (see :mod:`.resumed_loops`).

Once the position of a resumed ``for i in range(n)`` has been seen to vary (the resume function's index
argument is a dynamic int), the loop's iterator is modelled at that position as a SymInt rather than
unrolled from a guarded constant: exhaustion is a decision on the symbol against the range's stop, a
symbolic int too (a relational guard, ``start + s0 * step < s1``, or ``>=`` for the last pass; start and
step are guarded constants) and the item is ``start + position * step``. One compiled entry then covers
every middle pass (the rest of the body, the next item, the body up to the break) and one more the pass
that leaves the loop, whatever its length, for loops of other lengths on later calls too.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from .. import bytecode_helpers
from .iterators import IteratorVariable
from .symbolic_scalars import SymbolicVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class SymbolicRangeIterator(IteratorVariable):
    """A ``range`` iterator whose position is a symbolic int (a resume function's index argument, read
    from ``source``), ``taken`` items further on, over the range read from ``iterable`` (its start and step
    guarded constants, its stop the symbolic ``stop``: one entry for loops of every length). The position
    handed on is computed in bytecode from the argument (``index + taken``), not by the graph: a pass that
    does no tensor work needs no graph."""

    def __init__(self, values: range, iterable: Any, stop: SymbolicVariable, position: SymbolicVariable,
                 source: Any) -> None:
        self.values = values
        self.iterable = iterable
        self.stop = stop
        self.position = position
        self.source = source
        self.taken = 0

    def python_type(self) -> type:
        return type(iter(range(0)))

    def describe(self) -> str:
        return "range iterator at a symbolic position"

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        step = self.values.step
        value = self.values.start + (self.position.example + self.taken) * step  # the position is at most the length
        if not bool(value < self.stop.example if step > 0 else value > self.stop.example):  # a relational guard
            return None
        item = self.position if self.taken == 0 else _apply(tx, operator.add, self.position, self.taken)
        if self.values.step != 1:
            item = _apply(tx, operator.mul, item, self.values.step)
        if self.values.start != 0:
            item = _apply(tx, operator.add, item, self.values.start)
        self.taken += 1
        return item

    def remaining(self) -> list[Variable] | None:
        return None  # not known without the symbol's value

    def reconstruct_position(self, codegen) -> None:
        codegen.load_source(self.iterable)
        codegen.load_source(self.source)
        if self.taken:
            codegen.load_const(self.taken)
            codegen.emit("BINARY_OP", 0)  # NB_ADD

    def reconstruct(self, codegen) -> None:
        codegen.load_callable(bytecode_helpers.iter_at)
        self.reconstruct_position(codegen)
        codegen.call(2)

    def live_position(self) -> tuple[Callable[..., None], int] | None:
        return None


def _apply(tx: InstructionTranslator, op: Callable, left: SymbolicVariable, right: int) -> SymbolicVariable:
    """``op(left, right)`` as a graph node (the SymInt arithmetic a pass of the loop does)."""
    node = tx.output.graph.call_function(op, (left.node, right))
    return SymbolicVariable(node, op(left.example, right))


def symbolic_range_iterator(tx: InstructionTranslator, values: range, iterable: Any, position: Variable,
                            source: Any) -> SymbolicRangeIterator | None:
    """The iterator of a resumed loop over range ``values`` (read from ``iterable``) at symbolic ``position``
    (read from ``source``), or None when the position is no symbolic int (the caller unrolls from a constant
    then). The range's type, start and step are guarded; its stop is a symbolic int."""
    if type(values) is not range or not isinstance(position, SymbolicVariable) or position.python_type() is not int:
        return None
    guards = tx.output.guards
    guards.add("type", iterable, values)
    guards.add("constant", Attr(iterable, "start"), values.start)
    guards.add("constant", Attr(iterable, "step"), values.step)
    stop = tx.output.add_symint_input(values.stop, Attr(iterable, "stop"))
    return SymbolicRangeIterator(values, iterable, stop, position, source)
