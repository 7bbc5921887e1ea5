"""``heapq`` in Python: the selection functions (what ``Counter.most_common(n)`` calls) and the heap
operations on a list (``heappush``, ``heappop``, ``heapify``, ``heapreplace``, ``heappushpop``), the C
module's algorithm step for step: the same comparisons (``<`` only) in the same order, so the same list
afterwards and the same exceptions."""

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


def _check_list(heap: Any, name: str) -> None:
    if not isinstance(heap, list):
        raise TypeError(f"{name}() argument 1 must be list, not {type(heap).__name__}")


def _before(a: Any, b: Any, largest_first: bool) -> bool:
    """Whether ``a`` goes above ``b`` in the heap: ``a < b``, or ``b < a`` in a max-heap (``<`` only, as C)."""
    return b < a if largest_first else a < b


def _sift_down(heap: list, start: int, pos: int, largest_first: bool = False) -> None:
    """Move ``heap[pos]`` up towards ``start`` while it goes before its parent."""
    item = heap[pos]
    while pos > start:
        parent_pos = (pos - 1) >> 1
        parent = heap[parent_pos]
        if _before(item, parent, largest_first):
            heap[pos] = parent
            pos = parent_pos
            continue
        break
    heap[pos] = item


def _sift_up(heap: list, pos: int, largest_first: bool = False) -> None:
    """Move the child that goes first up until a leaf is reached, then put ``heap[pos]`` there and sift it down."""
    end = len(heap)
    start = pos
    item = heap[pos]
    child = 2 * pos + 1
    while child < end:
        right = child + 1
        if right < end and not _before(heap[child], heap[right], largest_first):
            child = right
        heap[pos] = heap[child]
        pos = child
        child = 2 * pos + 1
    heap[pos] = item
    _sift_down(heap, start, pos, largest_first)


@polyfill(_heapq.heappush)
def heappush(heap: Any, item: Any) -> None:
    """``heapq.heappush(heap, item)``."""
    _check_list(heap, "heappush")
    heap.append(item)
    _sift_down(heap, 0, len(heap) - 1)


@polyfill(_heapq.heappop)
def heappop(heap: Any) -> Any:
    """``heapq.heappop(heap)``."""
    _check_list(heap, "heappop")
    if not heap:
        raise IndexError("index out of range")
    last = heap.pop()
    if not heap:
        return last
    smallest = heap[0]
    heap[0] = last
    _sift_up(heap, 0)
    return smallest


@polyfill(_heapq.heapify)
def heapify(heap: Any) -> None:
    """``heapq.heapify(heap)``."""
    _check_list(heap, "heapify")
    for i in reversed(range(len(heap) // 2)):
        _sift_up(heap, i)


@polyfill(_heapq.heapreplace)
def heapreplace(heap: Any, item: Any) -> Any:
    """``heapq.heapreplace(heap, item)``: pop the smallest, then push ``item``."""
    _check_list(heap, "heapreplace")
    if not heap:
        raise IndexError("index out of range")
    smallest = heap[0]
    heap[0] = item
    _sift_up(heap, 0)
    return smallest


@polyfill(_heapq.heappushpop)
def heappushpop(heap: Any, item: Any) -> Any:
    """``heapq.heappushpop(heap, item)``: push ``item``, then pop the smallest."""
    _check_list(heap, "heappushpop")
    if heap and heap[0] < item:
        item, heap[0] = heap[0], item
        _sift_up(heap, 0)
    return item


# The max-heap helpers ``heapq.merge(..., reverse=True)`` calls (private in C before 3.14).
if hasattr(_heapq, "_heapify_max"):
    @polyfill(_heapq._heapify_max)
    def heapify_max(heap: Any) -> None:
        """``heapq._heapify_max(heap)``: the largest item first."""
        _check_list(heap, "_heapify_max")
        for i in reversed(range(len(heap) // 2)):
            _sift_up(heap, i, largest_first=True)

if hasattr(_heapq, "_heappop_max"):
    @polyfill(_heapq._heappop_max)
    def heappop_max(heap: Any) -> Any:
        """``heapq._heappop_max(heap)``: pop the largest item."""
        _check_list(heap, "_heappop_max")
        if not heap:
            raise IndexError("index out of range")
        last = heap.pop()
        if not heap:
            return last
        largest = heap[0]
        heap[0] = last
        _sift_up(heap, 0, largest_first=True)
        return largest

if hasattr(_heapq, "_heapreplace_max"):
    @polyfill(_heapq._heapreplace_max)
    def heapreplace_max(heap: Any, item: Any) -> Any:
        """``heapq._heapreplace_max(heap, item)``: pop the largest, then push ``item``."""
        _check_list(heap, "_heapreplace_max")
        if not heap:
            raise IndexError("index out of range")
        largest = heap[0]
        heap[0] = item
        _sift_up(heap, 0, largest_first=True)
        return largest
