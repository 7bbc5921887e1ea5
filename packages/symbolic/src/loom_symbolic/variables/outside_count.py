"""``itertools.count`` objects from outside the frame (passed in, kept on an object or in a global): walked in the
trace from the number they stand at, and stepped after the graph as many times as the trace stepped them.

Where one stands is read from its ``repr`` (``count(5)``, ``count(5, 2)``, ``count(0.5, 0.1)``), which runs no user
code for int and float counters and, unlike its ``__reduce__``, is not deprecated; a counter over any other
number is left opaque. The ``repr`` is the guard: a counter at another number (or with another step) recompiles,
and the dynamic policy makes one that moves between calls opaque (``loom.dynamic``).
"""

from __future__ import annotations

import ast
import itertools
from collections.abc import Callable
from typing import Any

from loom_guards import Attr, Called

from .. import bytecode_helpers
from . import registry
from .constant import ConstantVariable
from .iterators import IteratorVariable
from .outside_sourced import SourcedIterator
from .wrap_rules import _iterator_from_frame, _object_variable


def count_state(value: itertools.count) -> tuple[Any, Any] | None:
    """(the next number, the step) an ``itertools.count`` stands at, from its ``repr``; None for a counter
    over numbers other than ints and floats (or a float whose ``repr`` is not a literal: ``inf``, ``nan``)."""
    text = repr(value)
    if not (text.startswith("count(") and text.endswith(")")):
        return None
    try:
        parts = ast.literal_eval(f"({text[6:-1]},)")
    except (ValueError, SyntaxError):
        return None
    if not 1 <= len(parts) <= 2 or not all(type(p) in (int, float) for p in parts):
        return None
    return parts[0], parts[1] if len(parts) == 2 else 1


class OutsideCount(SourcedIterator, IteratorVariable):
    """An ``itertools.count`` from outside the frame: each step is a number the trace knows, and the real
    counter takes as many steps after the graph (across a graph break, the real counter itself goes on)."""

    def __init__(self, start: Any, step: Any, source: Any) -> None:
        self.current, self.step = start, step
        self.source = source
        self.steps = 0

    def python_type(self) -> type:
        return itertools.count

    def next_item(self, tx) -> Any:
        item = ConstantVariable(self.current)
        self.current = self.current + self.step  # as C's count adds, so floats drift as they do there
        self.steps += 1
        tx.output.side_effects.advanced_iterator(self)
        return item

    def replay(self) -> tuple[Callable[..., None], tuple]:
        return bytecode_helpers.advance_iterator, (self.steps, False)

    def describe(self) -> str:
        return "count object"


def _wrap_count(tx, value: itertools.count, source: Any) -> Any:
    def make() -> Any:
        state = count_state(value)
        if state is None:
            return _object_variable(tx, value, source)
        tx.output.guards.add("type", source, value)
        tx.output.guards.add("constant", Called(Attr(source, "__repr__")), repr(value))
        return OutsideCount(*state, source)

    return _iterator_from_frame(tx, value, source, make)


# after the wrapping iterators' rule (105), before the range iterators' (110): no other rule takes a counter
registry.add_rule(107, lambda v: type(v) is itertools.count, _wrap_count)
registry.add_exact_type(itertools.count, _wrap_count)
