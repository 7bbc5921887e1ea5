"""Cells of a function made while tracing (test_funcattrs): ``c.__class__`` is ``types.CellType``,
``c.cell_contents = v`` is what ``nonlocal`` stores (the function and the frame see it), ``del c.cell_contents``
empties it (the function's read then raises NameError), and ``f.__closure__ = ...`` raises CPython's read-only
error. They were graph breaks that could not split the frame (it ran uncompiled)."""

from __future__ import annotations

import torch

import loom


def test_cells_of_a_function_made_while_tracing_in_one_graph():
    def fn(x):
        a = 12

        def f():
            return a

        c = f.__closure__
        c[0].cell_contents = 9
        first = (c[0].cell_contents, f(), a, c[0].__class__.__name__)
        try:
            f.__closure__ = c
            readonly = None
        except AttributeError as e:
            readonly = str(e)
        del c[0].cell_contents
        try:
            f()
            named = True
        except NameError:
            named = False
        return x + first[1], first, readonly, named

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] and got[1] == (9, 9, 9, "cell") and got[3] is False
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks


def _cell(value):
    def f():
        return a
    a = value
    return f.__closure__[0]


def _empty_cell():
    def f():
        return a
    if False:
        a = 1
    return f.__closure__[0]


def test_cells_made_while_tracing_compare_as_cpython():
    def fn(x):
        return (x + 1, _cell(2) < _cell(3), _empty_cell() < _cell("saturday"), _empty_cell() == _empty_cell(),
                _cell(-36) == _cell(-36.0), _cell(True) > _empty_cell(), _cell(1) != _cell(1))

    x = torch.arange(3.0)
    loom.reset()
    expected = fn(x)
    got = loom.compile(fn, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(got[0], expected[0])
    assert got[1:] == expected[1:] == (True, True, True, True, True, False)
    loom.reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report.breaks
