"""A class whose ``__init__`` is a property (test_class's ``__init__ = property(booh)``): making an instance runs the
getter on it (its AttributeError reaches the program's handler) and calls what it gives; it was a graph break."""

from __future__ import annotations

import torch

import loom


def _booh(self):
    raise AttributeError("booh")


class _Raising:
    __init__ = property(_booh)


class _Giving:
    def _init_for(self):
        def init(k):
            self.k = k
        return init

    __init__ = property(_init_for)


def test_an_init_property_runs_its_getter_in_one_graph():
    def fn(x):
        try:
            _Raising()
            message = None
        except AttributeError as e:
            message = str(e)
        return x + _Giving(3).k, message

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] == expected[1] == "booh"
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
