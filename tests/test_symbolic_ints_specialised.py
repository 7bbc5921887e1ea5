"""Symbolic sizes (``dynamic=True``) where Python needs a plain object: formatted into a string (f-string,
``str.format``, ``%``) or in a shape used as a dict key. torch.compile specialises the size there (its
value becomes a guard) instead of breaking; so does loom, and another size compiles a new entry."""

from __future__ import annotations

import pytest
import torch

import loom


def f_string_of_a_size(x):
    n = x.shape[0]
    return x + len(f"size={n:03d} {n!r} {x.shape}")


def format_of_a_size(x):
    return x + len("{}-{:.2f}-{name}".format(x.shape[0], 1.5, name=x.size(0)))


def percent_of_a_size(x):
    return x + len("%d-%s" % (x.shape[0], "x")) + len("%d" % x.shape[0])


def shape_keyed_cache(x):
    cache = {}
    cache[x.shape] = x * 2
    cache[tuple(x.shape)] = x + 1
    return cache[torch.Size([x.shape[0]])], len(cache), (x.shape[0],) in cache


CASES = [f_string_of_a_size, format_of_a_size, percent_of_a_size, shape_keyed_cache]


@pytest.mark.parametrize("fn", CASES, ids=lambda fn: fn.__name__)
def test_a_symbolic_size_needed_as_a_python_object_is_specialised_not_a_break(fn):
    compiled = loom.compile(fn, backend="eager", dynamic=True)
    for rows in (3, 12):  # 12: another number of digits, another text
        x = torch.arange(float(rows))
        got, want = compiled(x), fn(x)
        if isinstance(want, tuple):
            torch.testing.assert_close(got[0], want[0])
            assert got[1:] == want[1:]
        else:
            torch.testing.assert_close(got, want)
    stats = loom.stats()
    assert stats["graph_breaks"] == 0
    assert stats["graphs"] == 2  # one entry per size: the text depends on it

