"""An int subclass made while tracing whose class writes only some special methods in Python (``__radd__``):
where Python's dispatch reaches a builtin's own method that answers first (``Count(2) + 1``: int's ``__add__``;
``Count(2) + 1.5``: float's ``__radd__`` after int's declines), the builtin operator on the values answers, and
the Python method where Python asks it first (``1 + Count(2)``: the subclass's reflection). It used to be a
graph break."""

from __future__ import annotations

import torch

import loom


class _Count(int):
    def __radd__(self, other):
        return "count.radd"


class _Other(int):
    def __add__(self, other):
        return "other.add"


def test_builtin_methods_answering_first_are_folded():
    def fn(x):
        c = _Count(2)
        return x * 2, 1 + c, c + 1, c + _Count(3), c - 1, c + 1.5, _Other(1) + c, c + _Other(1), c < 3

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == ("count.radd", 3, 5, 1, 3.5, "other.add", 3, True)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
