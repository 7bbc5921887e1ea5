"""``object.__new__(cls)`` called explicitly for a class whose metaclass has a ``__call__`` of its own: no
metaclass code runs, so it is an empty instance as for a plain class (it used to be a graph break)."""

from __future__ import annotations

import torch

import loom


class _Meta(type):
    def __call__(cls, *args):
        inst = super().__call__(*args)
        inst.by_meta = True
        return inst


class _Made(metaclass=_Meta):
    def __init__(self, k):
        self.k = k

    def scaled(self, t):
        return t * self.k


def test_object_new_of_a_class_with_a_calling_metaclass_is_one_graph():
    def fn(x):
        o = object.__new__(_Made)
        o.k = 4
        return o.scaled(x), hasattr(o, "by_meta"), type(o) is _Made, o

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:3] == expected[1:3] == (False, True)
    assert type(got[3]) is _Made and vars(got[3]) == {"k": 4}
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
