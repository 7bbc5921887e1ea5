"""A special method that is a property on a class of objects made while tracing (``__getitem__ =
property(getter)``): CPython's slot reads it off the object (the getter runs, and may raise) and calls what it
gives; iteration by the old sequence protocol does so at each index. It was a graph break."""

from __future__ import annotations

import torch

import loom


class _Raising:
    __getitem__ = property(lambda self: 1 / 0)


class _Giving:
    def __init__(self, n):
        self.n = n

    def _item_for(self):
        def item(i):
            if i >= self.n:
                raise IndexError(i)
            return i * 10
        return item

    __getitem__ = property(_item_for)


def test_special_method_properties_in_one_graph():
    def fn(x):
        try:
            for i in _Raising():
                str(i)
            raised = False
        except ZeroDivisionError:
            raised = True
        g = _Giving(3)
        return x + g[1], raised, list(g), 20 in g

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (True, [0, 10, 20], True)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
