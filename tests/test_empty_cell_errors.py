"""Reading an empty cell inside compiled code raises CPython's own exception, which the program can catch: an
UnboundLocalError in the function owning the cell, a NameError (naming the variable) in a closure over it, each
with CPython's message (the ``except ... as e`` name cleared under a closure, ``del`` of a cell variable)."""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare

import loom


def handler_name_cleared_under_closure(x):
    try:
        raise ValueError("v")
    except ValueError as e:  # noqa: F841
        def read():
            return e  # noqa: F821

        first = type(read()).__name__
    try:
        read()
    except NameError as n:
        return x + 1, first, type(n).__name__, str(n), n.name


def closure_over_a_later_binding(x):
    def read():
        return y

    try:
        read()
    except NameError as n:
        caught = (type(n).__name__, str(n))
    y = 1
    return x + read(), caught


def cell_deleted_before_its_binding(x):
    def g():
        return y

    try:
        del y  # noqa: F821
    except UnboundLocalError as n:
        caught = (type(n).__name__, str(n))
    y = 3
    return x + g(), caught


def cell_deleted_by_a_closure(x):
    def g():
        nonlocal y
        del y

    y = 1
    g()
    try:
        y
    except NameError as n:
        return x + 1, type(n).__name__, str(n)


@pytest.mark.parametrize("fn", [handler_name_cleared_under_closure, closure_over_a_later_binding,
                                cell_deleted_before_its_binding, cell_deleted_by_a_closure],
                         ids=lambda fn: fn.__name__)
def test_empty_cell_raises_the_programs_exception_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
    report = loom.explain(fn)(torch.arange(3.0))
    assert report.graph_count == 1 and report.graph_break_count == 0, report.breaks
