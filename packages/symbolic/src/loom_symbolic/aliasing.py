"""Which frame values are the same object, and the guards that keep a trace's answer to that true.

The translator gives one variable to each object it reads from the frame, however many ways it was
reached (``f(x, x)``: one graph input; ``f(lst, lst)``: one list). That choice is only valid while the
sources still hold the same object, so a second source installs ``SameObject(first, second)``.

The converse matters too: a trace of ``f(a, b)`` with two distinct lists (or tensors, or objects)
is wrong for ``f(a, a)`` when it mutates one of them, or answers ``a is b``. So when a trace relied on
distinctness that way, the sources of all distinct tracked objects get one ``NoAliasing`` guard.
Objects guarded by identity (modules) are fixed, so they are left out of it. Without a mutation or
an identity test, aliasing cannot change what the trace computed, and nothing more is checked: the
common case (a model's forward) pays nothing.
"""

from __future__ import annotations

from typing import Any

import loom_guards


class AliasTracker:
    """The first source of each object the trace tracks by identity, and whether distinctness mattered."""

    def __init__(self) -> None:
        #: id → (object, first source, fixed): the object is kept alive so its id stays unique.
        self._first: dict[int, tuple[Any, Any, bool]] = {}
        self._relies_on_distinct = False

    def seen(self, value: Any, source: Any, *, fixed: bool = False) -> Any | None:
        """Note ``value`` reached through ``source``; returns the first source when it differs."""
        if source is None:
            return None
        entry = self._first.get(id(value))
        if entry is None or entry[0] is not value:
            self._first[id(value)] = (value, source, fixed)
            return None
        return entry[1] if entry[1] != source else None

    def relied_on_distinct(self) -> None:
        """The trace mutated a tracked value or answered an identity test between two of them."""
        self._relies_on_distinct = True

    def guards(self, *, mutated: bool) -> list[Any]:
        """``[NoAliasing(...)]`` over the distinct, not identity-guarded sources, when it matters."""
        if not (mutated or self._relies_on_distinct):
            return []
        sources = [source for _, source, fixed in self._first.values() if not fixed]
        return [loom_guards.NoAliasing(sources)] if len(sources) >= 2 else []
