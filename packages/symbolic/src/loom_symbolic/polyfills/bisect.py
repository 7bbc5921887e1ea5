"""``bisect`` in Python: binary search and insertion into a sorted sequence, as the C module does them
(``<`` only, ``key`` applied to the sequence's items and, for ``insort``, to the item inserted), with its
errors. ``bisect.bisect`` and ``bisect.insort`` are the ``_right`` functions themselves."""

from __future__ import annotations

import bisect as _bisect
from typing import Any

from .registry import polyfill


def _bounds(a: Any, lo: int, hi: Any) -> tuple[int, int]:
    if lo < 0:
        raise ValueError("lo must be non-negative")
    return lo, len(a) if hi is None else hi


@polyfill(_bisect.bisect_right)
def bisect_right(a: Any, x: Any, lo: int = 0, hi: Any = None, *, key: Any = None) -> int:
    """``bisect.bisect_right(a, x, lo=0, hi=None, *, key=None)``."""
    lo, hi = _bounds(a, lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if x < (a[mid] if key is None else key(a[mid])):
            hi = mid
        else:
            lo = mid + 1
    return lo


@polyfill(_bisect.bisect_left)
def bisect_left(a: Any, x: Any, lo: int = 0, hi: Any = None, *, key: Any = None) -> int:
    """``bisect.bisect_left(a, x, lo=0, hi=None, *, key=None)``."""
    lo, hi = _bounds(a, lo, hi)
    while lo < hi:
        mid = (lo + hi) // 2
        if (a[mid] if key is None else key(a[mid])) < x:
            lo = mid + 1
        else:
            hi = mid
    return lo


@polyfill(_bisect.insort_right)
def insort_right(a: Any, x: Any, lo: int = 0, hi: Any = None, *, key: Any = None) -> None:
    """``bisect.insort_right(a, x, lo=0, hi=None, *, key=None)``."""
    a.insert(bisect_right(a, x if key is None else key(x), lo, hi, key=key), x)


@polyfill(_bisect.insort_left)
def insort_left(a: Any, x: Any, lo: int = 0, hi: Any = None, *, key: Any = None) -> None:
    """``bisect.insort_left(a, x, lo=0, hi=None, *, key=None)``."""
    a.insert(bisect_left(a, x if key is None else key(x), lo, hi, key=key), x)
