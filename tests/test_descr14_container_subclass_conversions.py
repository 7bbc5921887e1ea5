"""``int(obj)`` / ``float(obj)`` of a list (or dict) subclass instance made while tracing whose class writes
``__int__``/``__float__`` in Python, while its members are constants: the class's method runs (the empty list
was taken for a constant and ``int([])`` folded: its TypeError, a graph break)."""

from __future__ import annotations

import torch

import loom


class _Node:
    def __int__(self):
        return int(self.foo())

    def __float__(self):
        return 1.5

    def foo(self):
        return "23"


class _Frag(_Node, list):
    def foo(self):
        return "42"


class _Table(dict):
    def __int__(self):
        return len(self) + 10


def test_conversions_of_container_subclass_instances_are_one_graph():
    def fn(x):
        return x + int(_Frag()), int(_Node()), float(_Frag([1])), int(_Table(a=1))

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (23, 1.5, 11)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
