"""What test_descr's operator tests read of builtin types: ``int.__add__ is int.__dict__["__add__"]`` (the slot
wrapper read two ways: the same object) and a builtin type's ``__bases__``/``__base__``/``__mro__`` (fixed for a
C type), walked to find the class defining a method. Both used to be graph breaks."""

from __future__ import annotations

import torch

import loom


def _owner(t, name):
    while name not in t.__dict__:
        t = t.__bases__[0]
    return t


class _Sub(int):
    pass


def test_unbound_builtin_methods_and_builtin_type_bases_are_one_graph():
    def fn(x):
        same = [getattr(int, n) is int.__dict__[n] for n in ("__add__", "__mul__", "__lt__")]
        return (x + 1, same, str.upper is str.__dict__["upper"], int.__add__ is float.__add__,
                _owner(bool, "__and__").__name__, _owner(bool, "__add__").__name__, _owner(_Sub, "__add__").__name__,
                bool.__base__ is int, [k.__name__ for k in bool.__mro__])

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    assert got[1] == [True, True, True] and got[3] is False and got[4:7] == ("bool", "int", "int")
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
