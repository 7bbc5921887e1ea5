"""``heapq``'s selection functions, in Python: what ``Counter.most_common(n)`` calls."""

from __future__ import annotations

import heapq as _heapq
from typing import Any

from .registry import polyfill


@polyfill(_heapq.nlargest)
def nlargest(n: int, iterable: Any, key: Any = None) -> list:
    """``heapq.nlargest(n, iterable, key=None)``: documented as ``sorted(iterable, key=key,
    reverse=True)[:n]``, which this is (equal items keep their order)."""
    if n <= 0:
        return []
    return sorted(iterable, key=key, reverse=True)[:n]


@polyfill(_heapq.nsmallest)
def nsmallest(n: int, iterable: Any, key: Any = None) -> list:
    """``heapq.nsmallest(n, iterable, key=None)``: ``sorted(iterable, key=key)[:n]``."""
    if n <= 0:
        return []
    return sorted(iterable, key=key)[:n]
