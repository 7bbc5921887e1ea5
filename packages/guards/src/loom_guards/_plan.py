"""From a guard list to a plan: simplify it, order it, and lay out the steps both back ends run.

* ``simplify``: merge duplicates (``TensorMatch`` per source, every ``GlobalState``), drop guards implied
  by others, and reject contradictions (``ValueError``).
* ``Plan``: the guards sorted cheapest and most selective first, as ``_Fetch`` steps (each source read
  once, into a numbered slot, right before its first use) and ``_Check`` steps. ``Plan.why_failed``
  interprets the steps with explanations for both back ends, so their failure texts cannot drift apart.
"""

from __future__ import annotations

import types
from collections.abc import Iterable, Mapping
from typing import Any

from .kinds import (
    ConstantMatch,
    DictContains,
    DictKeys,
    GlobalState,
    Guard,
    GuardFailure,
    Identity,
    IsNone,
    Length,
    NoAliasing,
    NotNone,
    Relation,
    SameObject,
    SetMembers,
    StorageOverlap,
    TensorMatch,
    TypeMatch,
    short_repr,
)
from .sources import FrameContext, Source, _closure_mapping, _ModuleMember

__all__ = ["Plan", "simplify"]


# -- simplification -----------------------------------------------------------------------------------


def _implied_closure(g: Guard) -> set[Guard]:
    out: set[Guard] = set()
    todo = list(g.implies())
    while todo:
        h = todo.pop()
        if h in out:
            continue
        out.add(h)
        todo.extend(h.implies())
    return out


def simplify(guards: Iterable[Guard]) -> list[Guard]:
    """Merge duplicates, drop guards implied by others, and reject contradictions (``ValueError``).

    Keeps the first-seen order of what remains.
    """
    if isinstance(guards, Guard):
        raise TypeError("compile() takes an iterable of guards, not a single guard")
    unique: dict[Guard, None] = {}
    for g in guards:
        if not isinstance(g, Guard):
            raise TypeError(f"not a loom_guards Guard: {type(g).__name__} {g!r}")
        unique[g] = None
    out: list[Guard] = []
    tensors: dict[Source, int] = {}
    state_at: int | None = None
    for g in unique:
        if isinstance(g, TensorMatch):
            at = tensors.get(g.source)
            if at is not None:
                merged = out[at].merged_with(g)
                if merged is None:
                    raise ValueError(f"contradictory guards: {out[at].describe()} / {g.describe()}")
                out[at] = merged
                continue
            tensors[g.source] = len(out)
        elif isinstance(g, GlobalState):
            if state_at is not None:
                merged = out[state_at].merged_with(g)
                if merged is None:
                    raise ValueError(f"contradictory guards: {out[state_at].describe()} / {g.describe()}")
                out[state_at] = merged
                continue
            state_at = len(out)
        out.append(g)
    implied: set[Guard] = set()
    lone = _lone_guards(out)
    for g in out:
        if id(g) not in lone:
            implied |= _implied_closure(g)
    kept = [g for g in out if g not in implied]
    _check_contradictions(kept, implied)
    return kept


#: The kinds loom-guards defines. Each implies guards on its own source only, and none implies a
#: guard that contradicts itself or another of its own implications (None is canonically IsNone).
_BUILT_IN_KINDS = frozenset({
    ConstantMatch, DictContains, DictKeys, GlobalState, Identity, IsNone, Length, NoAliasing, NotNone,
    Relation, SameObject, SetMembers, StorageOverlap, TensorMatch, TypeMatch,
})


def _lone_guards(guards: list[Guard]) -> set[int]:
    """Ids of the guards whose implications cannot matter: the only guard on their source, when
    every guard is of a built-in kind (so every implication stays on its guard's source). Nothing
    else on that source can be implied by them or contradict them; skipping their implications
    saves building two or three guard objects per guard."""
    if any(type(g) not in _BUILT_IN_KINDS for g in guards):
        return set()
    count: dict[Source, int] = {}
    for g in guards:
        src = g.source
        if src is not None:
            count[src] = count.get(src, 0) + 1
    return {id(g) for g in guards if g.source is not None and count[g.source] == 1}


def _check_contradictions(kept: list[Guard], implied: set[Guard]) -> None:
    by_source: dict[Source, dict[object, Guard]] = {}
    for g in [*kept, *implied]:
        src = g.source
        if src is None or isinstance(g, (NoAliasing, Relation)):
            continue
        seen = by_source.setdefault(src, {})
        if isinstance(g, TypeMatch):
            slot = "type"
        elif isinstance(g, (IsNone, NotNone)):
            slot = "none"
        elif isinstance(g, (ConstantMatch, Identity)):
            slot = "value"
        elif isinstance(g, Length):
            slot = "len"
        elif isinstance(g, DictKeys):
            slot = "keys"
        elif isinstance(g, SetMembers):
            slot = "members"
        elif isinstance(g, DictContains):
            slot = ("contains", g._ckey)  # the same key both present and absent
        else:
            continue
        other = seen.get(slot)
        if other is not None and other != g:
            raise ValueError(f"contradictory guards: {other.describe()} / {g.describe()}")
        seen[slot] = g
    for seen in by_source.values():
        t, n = seen.get("type"), seen.get("none")
        if isinstance(n, IsNone) and t is not None and t.expected_type is not type(None):
            raise ValueError(f"contradictory guards: {n.describe()} / {t.describe()}")
    _check_aliasing(kept)


def _check_aliasing(kept: list[Guard]) -> None:
    """Sources that ``SameObject`` guards tie together (transitively) cannot be in one ``NoAliasing``."""
    same = [g for g in kept if isinstance(g, SameObject)]
    if not same:
        return
    parent: dict[Source, Source] = {}

    def root(s: Source) -> Source:
        while parent.get(s, s) != s:
            s = parent[s]
        return s

    for g in same:
        a, b = g.sources
        parent[root(a)] = root(b)
    for g in kept:
        if isinstance(g, NoAliasing):
            seen: dict[Source, Source] = {}
            for s in g.sources:
                other = seen.setdefault(root(s), s)
                if other != s:
                    raise ValueError(
                        f"contradictory guards: {g.describe()} / {other} and {s} are the same object (SameObject)"
                    )


# -- ordering and the plan ----------------------------------------------------------------------------

_CHEAP = 2  # guards this cheap on a source run before anything is read through it


def _order_key(item: tuple[int, Guard]) -> tuple:
    index, g = item
    srcs = g.sources
    if len(srcs) == 1:  # most guards: skip the generators
        depth, fetch = srcs[0]._stats()
    else:
        stats = [s._stats() for s in srcs]
        depth = max((d for d, _ in stats), default=0)
        fetch = sum(f for _, f in stats)
    return (g.cost, depth, fetch, index)


class _Fetch:
    """Read ``source`` into ``slot`` from ``base_slot`` (None for a root).

    ``from_table``: a module member read as ``table[name]`` from its (shared) table slot.
    """

    __slots__ = ("base_slot", "for_guard", "from_table", "slot", "source")

    def __init__(
        self, slot: int, source: Source, base_slot: int | None, for_guard: Guard, from_table: bool = False
    ) -> None:
        self.slot, self.source, self.base_slot, self.for_guard = slot, source, base_slot, for_guard
        self.from_table = from_table

    def read(self, base_value: Any) -> Any:
        if self.from_table:
            return base_value[self.source.name]
        return self.source.read_from(base_value)


class _Check:
    __slots__ = ("guard", "slots")

    def __init__(self, guard: Guard, slots: tuple[int, ...]) -> None:
        self.guard, self.slots = guard, slots


class Plan:
    """The ordered steps of a guard check: each source read once, right before its first use."""

    def __init__(
        self,
        guards: list[Guard],
        f_globals: Mapping[str, Any] | None,
        f_builtins: Any,
        closure: Any,
    ) -> None:
        self.f_globals = f_globals
        if isinstance(f_builtins, types.ModuleType):
            f_builtins = f_builtins.__dict__
        self.f_builtins = f_builtins
        self.closure = closure
        self.closure_map = _closure_mapping(closure, None) if closure is not None else None
        ordered = [g for _, g in sorted(enumerate(guards), key=_order_key)]
        cheap: dict[Source, list[Guard]] = {}
        for g in ordered:
            if g.cost <= _CHEAP and g.source is not None:
                cheap.setdefault(g.source, []).append(g)
        self.steps: list[_Fetch | _Check] = []
        self.slots: dict[Source, int] = {}
        done: set[int] = set()

        def need(src: Source, for_guard: Guard) -> int:
            slot = self.slots.get(src)
            if slot is not None:
                return slot
            base_slot = None
            from_table = False
            if src.base is not None:
                base_slot = need(src.base, for_guard)
                for g in cheap.get(src.base, ()):
                    emit(g)
                if isinstance(src, _ModuleMember):
                    # members of one module share the read of its table
                    base_slot = need(src.table_source(), for_guard)
                    from_table = True
            slot = len(self.slots)
            self.slots[src] = slot
            self.steps.append(_Fetch(slot, src, base_slot, for_guard, from_table))
            return slot

        def emit(g: Guard) -> None:
            if id(g) in done:
                return
            done.add(id(g))
            slots = tuple(need(s, g) for s in g.sources)
            self.steps.append(_Check(g, slots))

        for g in ordered:
            emit(g)
        self.guards: tuple[Guard, ...] = tuple(s.guard for s in self.steps if isinstance(s, _Check))
        self.roots = {type(s) for s in self.slots if s.base is None}

    # -- slow paths shared by both back ends ------------------------------------------------------
    def context(self, frame: Any) -> FrameContext:
        if not hasattr(frame, "f_locals") and not isinstance(frame, Mapping):
            raise TypeError(
                f"a guard needs a frame view (with f_locals) or a mapping of locals, got {type(frame).__name__}"
            )
        return FrameContext(frame, self.f_globals, self.f_builtins, self.closure)

    def why_failed(self, frame: Any) -> GuardFailure | None:
        ctx = self.context(frame)
        values: list[Any] = [None] * len(self.slots)
        for step in self.steps:
            if isinstance(step, _Fetch):
                src = step.source
                try:
                    if step.base_slot is None:
                        values[step.slot] = src.get(ctx)
                    else:
                        values[step.slot] = step.read(values[step.base_slot])
                except Exception as exc:
                    return GuardFailure(
                        step.for_guard,
                        step.for_guard.describe(),
                        f"nothing: {src} raised {type(exc).__name__}: {_exc_text(exc)}",
                    )
                continue
            g = step.guard
            args = [values[i] for i in step.slots]
            try:
                res = g.explain(*args)
            except Exception as exc:
                what = ", ".join(short_repr(a) for a in args) or "the check"
                return GuardFailure(g, g.describe(), f"{what} (checking raised {type(exc).__name__}: {_exc_text(exc)})")
            if res is not None:
                return GuardFailure(g, res[0], res[1])
        return None

    @property
    def alive(self) -> bool:
        return _alive(self.guards)

    def describe(self, header: str) -> str:
        lines = [header]
        lines += [f"  {i}. {g.describe()}" for i, g in enumerate(self.guards, 1)]
        return "\n".join(lines)


def _exc_text(exc: BaseException) -> str:
    try:
        text = str(exc)
    except Exception:
        text = "?"
    return text if len(text) <= 120 else text[:117] + "..."


def _alive(guards: tuple[Guard, ...]) -> bool:
    return all(g.alive for g in guards)
