"""Counts of what loom did since the last :func:`loom.reset`."""

from __future__ import annotations

import threading
from collections import Counter

_lock = threading.Lock()
_counts: Counter[str] = Counter()

#: The names :func:`loom.stats` always reports.
NAMES = ("graphs", "graph_breaks", "recompiles", "frames_compiled", "frames_skipped", "cache_hits")


def bump(name: str, by: int = 1) -> None:
    """Add ``by`` to counter ``name``."""
    with _lock:
        _counts[name] += by


def snapshot() -> dict[str, int]:
    """The counters as a plain dict."""
    with _lock:
        return {name: _counts.get(name, 0) for name in NAMES} | {k: v for k, v in _counts.items() if k not in NAMES}


def clear() -> None:
    """Zero every counter."""
    with _lock:
        _counts.clear()
