"""Calling an object made while tracing whose class has no ``__call__``: CPython's TypeError ("'C' object is not
callable"), with its message known to the trace, instead of a graph break."""

from __future__ import annotations

import torch

import loom


class _NoCall:
    pass


class _Sub(_NoCall):
    pass


def test_calling_an_object_without_call_raises_in_the_graph():
    def fn(x):
        c = _Sub()
        try:
            c(1)
        except TypeError as e:
            message = str(e)
        return x + 1, message, callable(c)

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == ("'_Sub' object is not callable", False)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
