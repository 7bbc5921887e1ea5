"""What every one of loom's disk caches keeps alike: its per-process counts and its environment switch.

The graph cache, the AOTAutograd cache and loom's frame cache each count ``hits``, ``misses``, ``stored``,
``bypassed`` and ``ignored`` and are turned off by an environment variable set to ``0``/``false``/``no``/
``off``; this module is that once.
"""

from __future__ import annotations

import os
import threading
from collections import Counter

__all__ = ["COUNT_NAMES", "CacheCounts", "switched_off"]

#: The counts every cache reports, in the order :meth:`CacheCounts.stats` gives them.
COUNT_NAMES = ("hits", "misses", "stored", "bypassed", "ignored")


class CacheCounts:
    """One cache's counts in this process, safe to bump from several threads."""

    def __init__(self) -> None:
        self._counts: Counter[str] = Counter()
        self._lock = threading.Lock()

    def count(self, name: str) -> None:
        """Add one to count ``name``."""
        with self._lock:
            self._counts[name] += 1

    def stats(self) -> dict[str, int]:
        """Every count of :data:`COUNT_NAMES`, zeros included."""
        with self._lock:
            return {name: self._counts[name] for name in COUNT_NAMES}


def switched_off(variable: str) -> bool:
    """Whether environment variable ``variable`` is ``0``, ``false``, ``no`` or ``off`` (any case, spaces
    around it ignored); read at every call, so a test or a program may change it at any time."""
    return os.environ.get(variable, "").strip().lower() in {"0", "false", "no", "off"}
