"""Which frame values are the same object, and the guards that keep a trace's answer to that true.

The translator gives one variable to each object it reads from the frame, however many ways it was
reached (``f(x, x)``: one graph input; ``f(lst, lst)``: one list). That choice is only valid while the
sources still hold the same object, so a second source installs ``SameObject(first, second)``.

The converse matters too: a trace of ``f(a, b)`` with two distinct lists (or tensors, or objects)
is wrong for ``f(a, a)`` when it mutates one of them, or answers ``a is b``. So when a trace relied on
distinctness that way, the sources of all distinct tracked objects get one ``NoAliasing`` guard.
Objects guarded by identity are fixed, so they are left out of it. Modules (guarded by type, so two
sources may hold one module on a later call) join it only when the trace relied on distinctness or
changed Python objects: an in-place tensor update in the graph cannot see two modules alias except
through their parameters and buffers, which are tracked themselves. Without a mutation or an identity
test, aliasing cannot change what the trace computed, and nothing more is checked: the common case (a
model's forward) pays nothing.
"""

from __future__ import annotations

from typing import Any

import loom_guards

_VALUE, _MODULE, _FIXED = "value", "module", "fixed"


class AliasTracker:
    """The first source of each object the trace tracks by identity, and whether distinctness mattered."""

    def __init__(self) -> None:
        #: id → (object, first source, kind): the object is kept alive so its id stays unique.
        self._first: dict[int, tuple[Any, Any, str]] = {}
        self._relies_on_distinct = False
        #: id → why, for objects the trace must not read (:meth:`withhold`).
        self._withheld: dict[int, str] = {}

    def withhold(self, value: Any, source: Any, why: str) -> bool:
        """Keep the trace from reading ``value`` (reached through ``source``), which the rewritten code
        changes after the graph (a list a deferred warning is appended to): a later read of it through
        another source is refused (:meth:`withheld`), and other tracked objects are guarded distinct from
        it. False when the trace read it already."""
        entry = self._first.get(id(value))
        if entry is not None and entry[0] is value:
            return entry[1] == source and id(value) in self._withheld
        self._first[id(value)] = (value, source, _VALUE)
        self._withheld[id(value)] = why
        return True

    def withheld(self, value: Any) -> str | None:
        """Why the trace must not read ``value``, if :meth:`withhold` said so."""
        if not self._withheld:
            return None
        entry = self._first.get(id(value))
        return self._withheld.get(id(value)) if entry is not None and entry[0] is value else None

    def seen(self, value: Any, source: Any, *, fixed: bool = False, module: bool = False) -> Any | None:
        """Note ``value`` reached through ``source``; returns the first source when it differs."""
        if source is None:
            return None
        entry = self._first.get(id(value))
        if entry is None or entry[0] is not value:
            self._first[id(value)] = (value, source, _FIXED if fixed else _MODULE if module else _VALUE)
            return None
        return entry[1] if entry[1] != source else None

    def relied_on_distinct(self) -> None:
        """The trace mutated a tracked value or answered an identity test between two of them."""
        self._relies_on_distinct = True

    def guards(self, *, mutated: bool, objects_mutated: bool = False) -> list[Any]:
        """``[NoAliasing(...)]`` over the distinct, not identity-guarded sources, when it matters
        (``mutated``: the trace changed anything; ``objects_mutated``: it changed Python objects)."""
        if not (mutated or self._relies_on_distinct):
            return []
        kinds = (_VALUE, _MODULE) if self._relies_on_distinct or objects_mutated else (_VALUE,)
        sources = [source for _, source, kind in self._first.values() if kind in kinds]
        return [loom_guards.NoAliasing(sources)] if len(sources) >= 2 else []
