"""A real property's ``__get__``/``__set__``/``__delete__`` called by name (``C.x.__set__(a, 100)``): its accessors
called with the object, in the graph; they were graph breaks."""

from __future__ import annotations

import torch

import loom


class _C:
    def getx(self):
        return self.__x

    def setx(self, value):
        self.__x = value

    def delx(self):
        del self.__x

    x = property(getx, setx, delx)


def test_property_accessors_called_by_name_are_one_graph():
    def fn(x):
        a = _C()
        _C.x.__set__(a, 100)
        got = _C.x.__get__(a)
        same = _C.x.__get__(None, _C) is _C.x
        _C.x.__delete__(a)
        return x + got, same, hasattr(a, "x"), _C.x.__get__(a, _C) if hasattr(a, "_C__x") else None

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (True, False, None)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
