"""A C type's attribute traced through a Python replacement (``dict.fromkeys``, ``itertools.chain.from_iterable``)
is the original to everything but a call: its names, ``__self__`` and type, and the object handed back where it
leaves the graph (the replacement's ``'dict_fromkeys'`` and function object used to show)."""

from __future__ import annotations

import itertools

import torch

import loom


def _run(fn, x):
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    loom.reset()
    report = loom.explain(fn)(x)
    return expected, got, report


def test_names_of_a_replaced_attribute_are_the_originals():
    def fn(x):
        g = dict.fromkeys
        h = itertools.chain.from_iterable
        return x + 1, g.__name__, g.__qualname__, h.__qualname__, g.__self__, type(h).__name__

    expected, got, report = _run(fn, torch.arange(3.0))
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == ("fromkeys", "dict.fromkeys", "chain.from_iterable", dict,
                                       "builtin_function_or_method")
    assert report.graph_count == 1 and report.break_count == 0


def test_a_replaced_attribute_leaving_the_graph_is_the_original():
    def fn(x):
        return x * 2, dict.fromkeys, itertools.chain.from_iterable

    expected, got, report = _run(fn, torch.arange(3.0))
    assert got[1] == expected[1] and got[2] == expected[2]  # bound builtin methods: equal when the same
    assert got[1]("ab") == {"a": None, "b": None}
    assert report.graph_count == 1 and report.break_count == 0


def test_a_replaced_attribute_is_still_traced_when_called():
    def fn(x):
        keys = dict.fromkeys("ab", 2)
        return x + sum(keys.values()) + len(list(itertools.chain.from_iterable([[1], [2, 3]])))

    expected, got, report = _run(fn, torch.arange(3.0))
    torch.testing.assert_close(got, expected)
    assert report.graph_count == 1 and report.break_count == 0
