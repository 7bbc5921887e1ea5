"""``int(obj)``, ``float(obj)``, ``complex(obj)`` where the class's ``__int__``/``__float__``/``__complex__`` (in
Python) returns a value of the wrong type: CPython's TypeError, with its message, raised in the trace (it was a
graph break)."""

from __future__ import annotations

import torch

import loom


class _Bad:
    def __int__(self):
        return None

    __float__ = __complex__ = __index__ = __int__


class _Str:
    def __int__(self):
        return "x"

    def __float__(self):
        return 2


def test_wrong_types_returned_raise_in_one_graph():
    def fn(x):
        out = []
        for convert in (int, float, complex):
            for value in (_Bad(), _Str()):
                try:
                    out.append(convert(value))
                except TypeError as e:
                    out.append(str(e))
        return x + 1, out

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1] == expected[1] and "_Bad.__float__ returned non-float (type NoneType)" in got[1]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
