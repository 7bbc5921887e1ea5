"""Storing an attribute on an instance of an immutable builtin type (``(1).__class__ = MyInt``, ``"a".x = 1``)
raises CPython's error in the trace (TypeError, AttributeError, with their messages); it was a graph break."""

from __future__ import annotations

import torch

import loom


class _MyInt(int):
    __slots__ = ()


def test_stores_on_immutable_constants_raise_in_one_graph():
    def fn(x):
        caught = []
        for value in (1, "a", (), 1.5):
            try:
                value.__class__ = _MyInt
            except TypeError as e:
                caught.append(("TypeError", str(e)))
        try:
            "a".extra = 1
        except AttributeError as e:
            caught.append(("AttributeError", str(e)))
        return x + 1, caught

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] == expected[1] and len(got[1]) == 5
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
