"""``heapq``'s heap operations and ``bisect``'s functions: their Python stand-ins natively against the C
originals (same lists afterwards, same results, same errors), and traced into the graph (a loop keeping a
heap or a sorted list is one graph, not a break per call)."""

from __future__ import annotations

import bisect
import heapq
import random

import pytest
import torch
from harness import check

from loom_symbolic import polyfills


def _outcome(call):
    try:
        return ("ok", call())
    except Exception as exc:  # the same type and message as the C function's
        return ("raised", type(exc), str(exc))


@pytest.mark.parametrize("seed", range(6))
def test_heap_operations_match_heapq(seed):
    rng = random.Random(seed)
    real, mine = [], []
    for _ in range(60):
        op = rng.choice(["heappush", "heappop", "heapreplace", "heappushpop", "heapify"])
        args = () if op in ("heappop", "heapify") else (rng.randint(0, 9),)
        if op == "heapify":
            extra = [rng.randint(0, 9) for _ in range(rng.randint(0, 5))]
            real.extend(extra)
            mine.extend(extra)
        got = _outcome(lambda: polyfills.replacement_for(getattr(heapq, op))(mine, *args))  # noqa: B023
        want = _outcome(lambda: getattr(heapq, op)(real, *args))  # noqa: B023
        assert got == want and mine == real, (op, args)
    assert _outcome(lambda: polyfills.replacement_for(heapq.heappush)((), 1)) == _outcome(lambda: heapq.heappush((), 1))


@pytest.mark.parametrize("name", ["bisect_left", "bisect_right", "insort_left", "insort_right"])
def test_bisect_matches(name):
    real_fn, mine_fn = getattr(bisect, name), polyfills.replacement_for(getattr(bisect, name))
    data = [1, 2, 2, 2, 5, 7]
    for x in (0, 2, 3, 7, 9):
        for kwargs in ({}, {"lo": 2}, {"hi": 4}, {"lo": 1, "hi": 5}, {"key": lambda v: v}, {"lo": -1}):
            real, mine = list(data), list(data)
            assert _outcome(lambda: mine_fn(mine, x, **kwargs)) == _outcome(lambda: real_fn(real, x, **kwargs))  # noqa: B023
            assert mine == real
    pairs = [(1, "a"), (3, "b")]
    real, mine = list(pairs), list(pairs)
    if name.startswith("insort"):
        assert mine_fn(mine, (2, "c"), key=lambda p: p[0]) == real_fn(real, (2, "c"), key=lambda p: p[0])
    else:
        assert mine_fn(mine, 2, key=lambda p: p[0]) == real_fn(real, 2, key=lambda p: p[0])
    assert mine == real


def beam_keep_best(x):
    heap = []
    for i, score in enumerate([5, 1, 4, 2, 3]):
        heapq.heappush(heap, (score, i))
        if len(heap) > 3:
            heapq.heappop(heap)
    best = heapq.heapreplace(heap, (0, 9))
    ordered = [1, 3, 5]
    bisect.insort(ordered, 4)
    heapq.heapify(ordered)
    return x * best[0] + bisect.bisect_left(ordered, 4), heap, ordered


def test_heap_and_bisect_are_traced_into_one_graph():
    check(beam_keep_best, torch.ones(3))


_MAX_HELPERS = [name for name in ("_heappop_max", "_heapreplace_max", "_heapify_max") if hasattr(heapq, name)]


@pytest.mark.skipif(not _MAX_HELPERS, reason="no private max-heap helpers in this heapq")
@pytest.mark.parametrize("seed", range(4))
def test_max_heap_helpers_match_heapq(seed):
    rng = random.Random(seed)
    real, mine = [], []
    for _ in range(40):
        op = rng.choice(_MAX_HELPERS)
        args = () if op != "_heapreplace_max" else (rng.randint(0, 9),)
        if op == "_heapify_max":
            extra = [rng.randint(0, 9) for _ in range(rng.randint(0, 5))]
            real.extend(extra)
            mine.extend(extra)
        got = _outcome(lambda: polyfills.replacement_for(getattr(heapq, op))(mine, *args))  # noqa: B023
        want = _outcome(lambda: getattr(heapq, op)(real, *args))  # noqa: B023
        assert got == want and mine == real, (op, args)


def merges(x):
    ascending = list(heapq.merge([1, 4, 7], [2, 5], [3, 6]))
    descending = list(heapq.merge([7, 4], [5, 1], reverse=True))
    keyed = list(heapq.merge(["bb", "c"], ["a", "ddd"], key=len))
    return x + ascending[-1] + descending[0], ascending, descending, keyed


def test_heapq_merge_is_one_graph():
    check(merges, torch.arange(3.0))
