"""A container's text methods called by name (``d.__repr__()``, ``dict.__repr__(d)``, ``l.__str__()``) are
``repr``/``str`` of it, in the graph; ``dict.__repr__(obj)`` of a subclass writing its own ``__repr__`` is the
builtin's (a graph break, with eager's answer). They were graph breaks."""

from __future__ import annotations

import torch

import loom


class _Shown(dict):
    def __repr__(self):
        return "Shown!"


def _run(fn, breaks):
    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:]
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count >= 1 and report.break_count == breaks, report.breaks


def test_text_methods_by_name_are_one_graph():
    def fn(x):
        d, items, t, s = {1: 2, 3: 4}, [1, "a"], (1,), {5}
        return (x + 1, d.__repr__(), dict.__repr__(d), items.__repr__(), list.__str__(items), t.__repr__(),
                s.__repr__(), _Shown(a=1).__repr__(), _Shown(a=1).__str__())

    _run(fn, 0)


def test_the_builtin_repr_of_a_subclass_writing_its_own_breaks():
    def fn(x):
        return x + 1, dict.__repr__(_Shown(a=1))

    _run(fn, 1)
