"""Full (oldest-generation) garbage collections wait while loom compiles a frame.

Compiling allocates hundreds of thousands of objects. CPython runs a full collection once enough of
them survive into the oldest generation, and a full collection walks every tracked object in the
process (a few hundred thousand once torch and a model are loaded): measured on CPython 3.12, the one
that landed inside a 2-layer GPT-2's cold compile doubled it. The young generations still run, so
short-lived cycles made while compiling are freed as usual; the full collection, if due, simply
comes after the compile.

The oldest generation's threshold is raised for as long as any thread compiles (a depth counter) and
put back when the last one finishes, unless the program changed the thresholds meanwhile, in which
case its setting stands.
"""

from __future__ import annotations

import contextlib
import gc
import threading
from collections.abc import Iterator

_DEFERRED = 1 << 30  # an oldest-generation threshold no compile reaches
_lock = threading.Lock()
_depth = 0
_saved: tuple[int, ...] | None = None
_installed: tuple[int, ...] | None = None


@contextlib.contextmanager
def full_collections_deferred() -> Iterator[None]:
    """Within the block, no full garbage collection starts (young-generation ones still do)."""
    _enter()
    try:
        yield
    finally:
        _leave()


def _enter() -> None:
    global _depth, _saved, _installed
    with _lock:
        _depth += 1
        if _depth == 1:
            current = gc.get_threshold()
            if current[0] == 0:  # collection is off by threshold: nothing to defer
                _saved = _installed = None
                return
            _saved = current
            _installed = (*current[:2], _DEFERRED)
            gc.set_threshold(*_installed)


def _leave() -> None:
    global _depth, _saved, _installed
    with _lock:
        _depth -= 1
        if _depth == 0 and _saved is not None:
            if gc.get_threshold() == _installed:  # the program did not set its own meanwhile
                gc.set_threshold(*_saved)
            _saved = _installed = None


def depth() -> int:
    """How many compiles are running now (for tests)."""
    return _depth
