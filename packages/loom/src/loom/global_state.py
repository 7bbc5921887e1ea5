"""A compile never changes global state: a snapshot taken before each compile, restored and checked after it.

The frame compiler wraps everything one compile does (translation, guard building, the backend, code
generation) in :func:`take` / :func:`restore`, whether the compile succeeds or fails at any point. What is
snapshotted is :data:`loom.state_items.ITEMS` (grad and inference mode, autocast, functorch's interpreter
stack, the torch-function and dispatch mode stacks and the fake mode, default dtype and device, torch's and
Python's random states, trace and profile functions, the recursion limit, warnings filters...) plus the
thread's dispatch-key sets, restored by a ``torch._C._PreserveDispatchKeyGuard`` held across the compile.

After a compile that ran inside an autocast region, the autocast cache is cleared: the compile's FakeTensor
casts of parameters would otherwise stay in it until the region ends (the program's own casts are simply
made again, with the same values).

Normally a change is written back and logged (logger ``loom``, INFO). With ``LOOM_CHECK_STATE=1`` (loom's
test suites set it) a change is still written back, then raised as :class:`GlobalStateChanged`, so that
the loom bug that made it is found.
"""

from __future__ import annotations

import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

import torch

from . import render
from .errors import GlobalStateChanged
from .state_items import ITEMS, CannotRestore

CHECK_ENV = "LOOM_CHECK_STATE"

log = logging.getLogger("loom")

_C = torch._C


@dataclass(frozen=True)
class Change:
    """One piece of state a compile changed: its value before and after, and whether it was put back."""

    name: str
    before: str
    after: str
    restored: bool = True

    def __str__(self) -> str:
        tail = "" if self.restored else " (could not be restored)"
        return f"{self.name} was {self.before}, left {self.after}{tail}"


class Snapshot:
    """The state before a compile (from :func:`take`); give it to :func:`restore` exactly once."""

    __slots__ = ("alone", "exclude", "in_autocast", "include", "keys_guard", "values")

    def __init__(self, values: list[Any], keys_guard: Any, include: Any, exclude: Any, in_autocast: bool) -> None:
        self.alone = _no_other_thread()  # see state_items: process_wide
        self.values = values
        self.keys_guard = keys_guard
        self.include = include
        self.exclude = exclude
        self.in_autocast = in_autocast


# Threads that run no program code: tqdm's monitor (started for good by the first progress bar, which
# torch.fx.Interpreter makes in every AOTAutograd compile) only sleeps and polls its bars. Counting it
# would turn the process-wide checks off in every process that ever compiled through AOTAutograd.
_IDLE_THREAD_TYPES = frozenset({"TMonitor"})


def _no_other_thread() -> bool:
    """Whether the calling thread is the only Python thread that may run program code."""
    if threading.active_count() == 1:
        return True
    current = threading.current_thread()
    return all(t is current or type(t).__name__ in _IDLE_THREAD_TYPES for t in threading.enumerate())


def take() -> Snapshot:
    """Read every piece of global state (a few microseconds)."""
    keys_guard = _C._PreserveDispatchKeyGuard()
    keys_guard.__enter__()
    return Snapshot([entry.read() for entry in ITEMS], keys_guard, _C._dispatch_tls_local_include_set(),
                    _C._dispatch_tls_local_exclude_set(), _C._is_any_autocast_enabled())


def restore(snapshot: Snapshot) -> list[Change]:
    """Put back every piece of state that differs from ``snapshot``; return what differed."""
    try:
        changes = _restore_items(snapshot)
        include, exclude = _C._dispatch_tls_local_include_set(), _C._dispatch_tls_local_exclude_set()
        if include != snapshot.include or exclude != snapshot.exclude:
            changes.append(Change("dispatch key sets (included, excluded)",
                                  f"({snapshot.include}, {snapshot.exclude})", f"({include}, {exclude})"))
    finally:
        snapshot.keys_guard.__exit__(None, None, None)  # the thread's dispatch-key sets as they were, always
    if snapshot.in_autocast:
        torch.clear_autocast_cache()
    return changes


def _restore_items(snapshot: Snapshot) -> list[Change]:
    changes: list[Change] = []
    # Process-wide items may have been changed by another thread alive at either end of the compile.
    alone = snapshot.alone and _no_other_thread()
    for entry, before in zip(ITEMS, snapshot.values):
        if entry.process_wide and not alone:
            continue
        now = entry.read()
        if entry.same(before, now):
            continue
        restored = True
        try:
            entry.write(before)
        except CannotRestore:
            restored = False
        changes.append(Change(entry.name, entry.show(before), entry.show(now), restored))
    return changes


def checking() -> bool:
    """Whether a change raises (``LOOM_CHECK_STATE=1``) instead of being only restored and logged."""
    return os.environ.get(CHECK_ENV, "") not in ("", "0")


def restore_after_compile(snapshot: Snapshot, where: Any) -> None:
    """:func:`restore`, then report a change: raise :class:`GlobalStateChanged` in the check mode, else log it.

    ``where`` is printed in the message (a code object is rendered as its file:line).
    """
    changes = restore(snapshot)
    if not changes:
        return
    place = render.where(where) if hasattr(where, "co_filename") else str(where)
    if checking():
        raise GlobalStateChanged(f"loom: compiling {place} changed global state: {'; '.join(map(str, changes))}",
                                 changes)
    log.info("loom: compiling %s changed global state (restored): %s", place, "; ".join(map(str, changes)))
