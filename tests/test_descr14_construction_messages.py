"""The TypeErrors of making an instance, with CPython's messages known to the trace (``str(e)``, ``e.args``):
``C(1)`` for a class without ``__init__`` ("C() takes no arguments") and an ``__init__`` returning a value
("__init__() should return None, not 'int'"). Reading the message used to be a graph break."""

from __future__ import annotations

import torch

import loom


class _Plain:
    pass


class _Returns:
    def __init__(self):
        return 1


def test_construction_error_messages_are_known():
    def fn(x):
        try:
            _Plain(1)
        except TypeError as e:
            first = str(e)
        try:
            _Returns()
        except TypeError as e:
            second = e.args
        return x + 1, first, second

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
