"""``obj.__eq__(other)`` / ``obj.__ne__(other)`` read off an object made while tracing whose class keeps
``object``'s: True (False) for the very object, NotImplemented for another; ``__ne__`` inverts a ``__eq__`` the
class writes. They were graph breaks (that could not split the frame: it ran uncompiled)."""

from __future__ import annotations

import torch

import loom


class _Plain:
    pass


class _EqAlways:
    def __eq__(self, other):
        return isinstance(other, _EqAlways)


def test_object_eq_and_ne_of_made_objects_are_one_graph():
    def fn(x):
        a, b, e = _Plain(), _Plain(), _EqAlways()
        return (x + 1, a.__eq__(a), a.__eq__(b) is NotImplemented, a.__ne__(a), a.__ne__(b) is NotImplemented,
                e.__ne__(_EqAlways()), e.__ne__(a), a == a, a != b)

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (True, True, False, True, False, True, True, True)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def test_object_methods_read_off_made_objects_are_callable_of_their_types():
    class Custom:
        pass

    names = ("__eq__", "__hash__", "__init__", "__repr__", "__setattr__", "__delattr__", "__format__", "__new__",
             "__reduce_ex__", "__sizeof__")

    def fn(x):
        o, c = object(), Custom()
        kinds = [type(getattr(v, name)).__name__ for name in names for v in (o, c)]
        return x + 1, all(callable(getattr(v, name, None)) for name in names for v in (object, o, Custom, c)), kinds

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] and got[1] is True
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
