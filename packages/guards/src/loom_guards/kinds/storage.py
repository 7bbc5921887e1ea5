"""``StorageOverlap``: which tensors share memory, as when the graph was compiled.

A backend that functionalizes a graph (AOTAutograd, and so ``aot_eager`` and ``triton``) compiles an
in-place update of one input for the memory sharing it saw among the inputs: ``a.add_(1); b * 2`` is
compiled differently when ``a`` and ``b`` are views of one buffer. Identity guards do not see this
(two views are two objects), so the pairs of inputs whose storages overlap are checked as a whole.

An input may be a NumPy ndarray the graph receives as ``torch.from_numpy(array)``: that tensor's
storage is exactly the array's bytes, so the array's byte span stands for it, at compile time and
at every call alike.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from typing import Any

from ..sources import Source
from .base import Guard, _check_source, _set


def overlapping_pairs(tensors: Iterable[Any]) -> frozenset[tuple[int, int]]:
    """The index pairs ``(i, j)``, ``i < j``, of tensors whose storages' memory overlaps."""
    spans = [_span(value) for value in tensors]
    pairs = set()
    for i, a in enumerate(spans):
        if a is None:
            continue
        for j in range(i + 1, len(spans)):
            b = spans[j]
            if b is not None and a[0] < b[1] and b[0] < a[1]:
                pairs.add((i, j))
    return frozenset(pairs)


def _span(value: Any) -> tuple[int, int] | None:
    """The ``[start, end)`` memory addresses ``value`` may read or write, or None when it holds no bytes."""
    if hasattr(value, "untyped_storage"):
        storage = value.untyped_storage()
        start, size = storage.data_ptr(), storage.nbytes()
        return (start, start + size) if size else None
    # NumPy is imported by whoever made the array; without it in sys.modules no value is an ndarray.
    np = sys.modules.get("numpy")
    if np is None or not isinstance(value, np.ndarray):
        # Not memory we can place: raising makes the guard fail rather than guess "no overlap".
        raise TypeError(f"cannot tell the memory of a {type(value).__name__}")
    if value.size == 0:
        return None
    start = value.__array_interface__["data"][0]
    low = high = start
    for n, stride in zip(value.shape, value.strides):  # a negative stride reaches below the data pointer
        reach = (n - 1) * stride
        low, high = (low + reach, high) if reach < 0 else (low, high + reach)
    return (low, high + value.itemsize)


class StorageOverlap(Guard):
    """The tensors at ``sources`` share memory in exactly the pairs ``overlapping`` (indices into
    ``sources``), no more and no fewer."""

    __slots__ = ("_sources", "overlapping")
    kind = "storage_overlap"
    cost = 7

    def __init__(self, sources: Iterable[Source], overlapping: Iterable[tuple[int, int]] = ()) -> None:
        srcs = tuple(sources)
        for s in srcs:
            _check_source("StorageOverlap", s)
        if len(srcs) < 2 or len(set(srcs)) != len(srcs):
            raise ValueError("StorageOverlap needs at least two distinct sources")
        pairs = frozenset((int(i), int(j)) for i, j in overlapping)
        for i, j in pairs:
            if not 0 <= i < j < len(srcs):
                raise ValueError(f"StorageOverlap pair {(i, j)} is not two source indices i < j")
        _set(self, _sources=srcs, overlapping=pairs)

    @property
    def sources(self) -> tuple[Source, ...]:
        return self._sources

    def _key(self) -> tuple:
        return (self._sources, self.overlapping)

    def _pairs_text(self, pairs: frozenset[tuple[int, int]]) -> str:
        if not pairs:
            return "none share memory"
        named = [f"{self._sources[i]} and {self._sources[j]}" for i, j in sorted(pairs)]
        return "memory shared by " + "; ".join(named)

    def describe(self) -> str:
        return f"storage overlap of {', '.join(map(str, self._sources))}: {self._pairs_text(self.overlapping)}"

    def explain(self, *tensors: Any) -> tuple[str, str] | None:
        seen = overlapping_pairs(tensors)
        if seen == self.overlapping:
            return None
        return (self.describe(), self._pairs_text(seen))
