"""``fn.__kwdefaults__ = {...}`` (or ``None``) on a function made while tracing: later calls use the very dict
assigned as it is then, and the function rebuilt after the graph keeps it. It used to be a graph break."""

from __future__ import annotations

import torch

import loom


def _one_graph(fn):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
    return expected, got


def test_assigned_keyword_defaults_are_used_and_kept():
    def fn(x):
        def f(a, *, k=1):
            return a * k

        d = {"k": 4}
        f.__kwdefaults__ = d
        first = f(x)
        d["k"] = 5
        return first, f(x), f.__kwdefaults__ is d, f

    expected, got = _one_graph(fn)
    for a, b in zip(expected[:2], got[:2]):
        torch.testing.assert_close(a, b)
    assert got[2] is True
    assert got[3].__kwdefaults__ == {"k": 5}
    torch.testing.assert_close(got[3](torch.ones(1)), torch.full((1,), 5.0))


def test_keyword_defaults_set_to_none_make_the_keyword_required():
    def fn(x):
        def f(a, *, k=1):
            return a + k

        f.__kwdefaults__ = None
        try:
            f(x)
            raised = False
        except TypeError:
            raised = True
        return x + 1, raised, f.__kwdefaults__

    expected, got = _one_graph(fn)
    assert got[1:] == expected[1:] == (True, None)
