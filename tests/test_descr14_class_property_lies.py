"""A class defining a property named ``__class__`` (or ``__name__``, ``__doc__``: names a data descriptor of
``type`` answers on reads through the class): its getter is guarded through the class ``__dict__`` entry (the
guard read ``cls.__class__.fget``, which is the metaclass's: an internal error, the frame left uncompiled), and
``isinstance`` consults the ``__class__`` it reports where the real type does not match, as CPython does."""

from __future__ import annotations

import torch

import loom


class _Liar:
    @property
    def __class__(self):
        return int


class _Named:
    @property
    def __name__(self):
        return "instance-name"

    @property
    def __doc__(self):
        return "instance-doc"


def _one_graph(fn):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
    return got


def test_a_class_property_named_class_answers_isinstance():
    def fn(x):
        o = _Liar()
        return x + 1, isinstance(o, int), isinstance(o, _Liar), isinstance(o, str), type(o) is _Liar, o.__class__

    assert _one_graph(fn)[1:] == (True, True, False, True, int)


def test_properties_named_as_type_attributes_are_read():
    def fn(x):
        o = _Named()
        return x * 2, o.__name__, o.__doc__, _Named.__name__

    assert _one_graph(fn)[1:] == ("instance-name", "instance-doc", "_Named")
