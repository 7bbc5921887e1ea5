"""A ``range`` loop resumed after a graph break, at a symbolic position (see :mod:`.resumed_loops`).

Once the position of a resumed ``for i in range(n)`` has been seen to vary (the resume function's index
argument is a dynamic int), the loop's iterator is modelled at that position as a SymInt rather than
unrolled from a guarded constant: exhaustion is a decision on the symbol against the range's length (a
relational guard, ``s0 < n`` or ``s0 >= n``) and the item is ``start + position * step``. One compiled
entry then covers every middle pass (the rest of the body, the next item, the body up to the break) and
one more the pass that leaves the loop, whatever its length. The range itself stays a guarded constant.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING

from .. import bytecode_helpers
from .iterators import IteratorVariable
from .symbolic_scalars import SymbolicVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class SymbolicRangeIterator(IteratorVariable):
    """A ``range`` iterator whose position is a symbolic int (a resume function's index argument)."""

    def __init__(self, values: range, position: SymbolicVariable) -> None:
        self.values = values
        self.position = position

    def python_type(self) -> type:
        return type(iter(range(0)))

    def describe(self) -> str:
        return "range iterator at a symbolic position"

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        position = self.position
        if not bool(position.example < len(self.values)):  # the decision is a guard on the symbol
            return None
        item = position
        if self.values.step != 1:
            item = _apply(tx, operator.mul, item, self.values.step)
        if self.values.start != 0:
            item = _apply(tx, operator.add, item, self.values.start)
        self.position = _apply(tx, operator.add, position, 1)
        return item

    def remaining(self) -> list[Variable] | None:
        return None  # not known without the symbol's value

    def reconstruct_position(self, codegen) -> None:
        codegen.load_const(self.values)
        codegen.reconstruct(self.position)

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


def symbolic_range_iterator(tx: InstructionTranslator, values: range, position: Variable) -> SymbolicRangeIterator | None:
    """The iterator of resumed loop over ``values`` at symbolic ``position``, or None when the position is
    no symbolic int (the caller unrolls from a constant then)."""
    if type(values) is not range or not isinstance(position, SymbolicVariable) or position.python_type() is not int:
        return None
    return SymbolicRangeIterator(values, position)
