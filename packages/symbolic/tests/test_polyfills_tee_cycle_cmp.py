"""``itertools.tee``, ``itertools.cycle`` and ``functools.cmp_to_key``: their Python stand-ins natively
against the C originals, and traced (each was a graph break at the call and another at every use)."""

from __future__ import annotations

import functools
import itertools

import pytest
import torch
from harness import check

from loom_symbolic import polyfills

tee = polyfills.replacement_for(itertools.tee)
cycle = polyfills.replacement_for(itertools.cycle)
cmp_to_key = polyfills.replacement_for(functools.cmp_to_key)


def _interleaved(make, source):
    a, b, c = make(iter(source), 3)
    return [next(a, None), next(a, None), next(b, None), next(c, None), *b, *a, next(c, None), *c]


@pytest.mark.parametrize("source", [[], [1], [1, 2, 3, 4]])
def test_tee_matches(source):
    assert _interleaved(tee, source) == _interleaved(itertools.tee, source)
    assert tee(source, 0) == itertools.tee(source, 0)
    with pytest.raises(ValueError, match="n must be >= 0"):
        tee(source, -1)
    with pytest.raises(ValueError, match="n must be >= 0"):
        itertools.tee(source, -1)


def test_cycle_matches():
    assert list(itertools.islice(cycle("abc"), 8)) == list(itertools.islice(itertools.cycle("abc"), 8))
    assert list(cycle([])) == list(itertools.cycle([]))
    with pytest.raises(TypeError):
        cycle(3)  # checked at the call, as the C constructor does


def _by_second(a, b):
    return (a[1] > b[1]) - (a[1] < b[1])


def test_cmp_to_key_matches():
    rows = [("a", 3), ("b", 1), ("c", 2), ("d", 1)]
    assert sorted(rows, key=cmp_to_key(_by_second)) == sorted(rows, key=functools.cmp_to_key(_by_second))
    mine, real = cmp_to_key(_by_second), functools.cmp_to_key(_by_second)
    assert (mine(("x", 1)) < mine(("y", 2)), mine(("x", 1)) == mine(("z", 1))) == (
        real(("x", 1)) < real(("y", 2)), real(("x", 1)) == real(("z", 1)))
    with pytest.raises(TypeError, match="other argument must be K instance"):
        mine(("x", 1)) < 3  # noqa: B015
    with pytest.raises(TypeError, match="other argument must be K instance"):
        real(("x", 1)) < 3  # noqa: B015


def tee_cycle_cmp_in_the_trace(x):
    a, b = itertools.tee(iter([x, x + 1, x + 2]))
    first = next(a)
    letters = itertools.cycle("ab")
    picked = [next(letters) for _ in range(3)]
    ranked = sorted([(x, 2), (x, 1)], key=functools.cmp_to_key(lambda p, q: p[1] - q[1]))
    return first + sum(b) + ranked[0][1], picked, list(a)


def test_tee_cycle_cmp_to_key_are_traced():
    check(tee_cycle_cmp_in_the_trace, torch.ones(3))
