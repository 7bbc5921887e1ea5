"""Closures made in an inlined function that outlive the compiled frame (test/dynamo/test_python_autograd.py:
each op of a tape-based autograd appends a ``propagate`` closure over its operands to a global tape).

The rewritten code could rebuild such a function only over the real frame's cells, so each one broke the
graph ("it closes over a variable of an inlined function"). The inlined frame is gone when the graph has
run, so only closures made in the trace hold its cells: the rewritten code now makes each such cell afresh
with the contents the trace left, once, shared by every closure over it.
"""

from __future__ import annotations

import torch

import loom

TAPE = []


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def _clean(report):
    assert report.graph_count == 1 and report.graph_break_count == 0, report.format()


def _record(a, b):
    out = a * b

    def propagate(g):
        return g * b, g * a

    TAPE.append(propagate)
    return out


def tape_of_closures(x):
    TAPE.clear()
    y = _record(x + 1, x.sin())
    z = _record(y, x * 2)
    return z.sum()


def test_closure_over_inlined_locals_escapes_through_a_global():
    x = torch.arange(3.0)
    expected = tape_of_closures(x)
    eager_grads = [p(torch.ones(3)) for p in TAPE]
    report = explained(tape_of_closures, x)
    _clean(report)
    assert torch.equal(report.result, expected)
    assert len(TAPE) == 2
    for (a, b), (c, d) in zip([p(torch.ones(3)) for p in TAPE], eager_grads):
        assert torch.equal(a, c) and torch.equal(b, d)


def _counter_pair(start):
    count = start

    def bump():
        nonlocal count
        count += 1
        return count

    def read():
        return count

    return bump, read


def closures_sharing_a_cell(x):
    bump, read = _counter_pair(2)
    bump()
    return x + read(), bump, read


def test_two_closures_share_the_cell_they_shared_in_the_trace():
    report = explained(closures_sharing_a_cell, torch.arange(3.0))
    _clean(report)
    out, bump, read = report.result
    assert torch.equal(out, torch.arange(3.0) + 3)
    assert bump() == 4 and read() == 4  # one cell: the bump is seen by read


def _late_binding():
    def get():
        return later

    escaped = get
    later = 5
    return escaped


def _unbound():
    def get():
        return never  # assigned below only on a path not taken

    if False:
        never = 1
    return get


def closures_over_late_and_empty_cells(x):
    return x * 2, _late_binding(), _unbound()


def test_late_bound_and_empty_cells():
    report = explained(closures_over_late_and_empty_cells, torch.arange(3.0))
    _clean(report)
    _, late, unbound = report.result
    assert late() == 5
    try:
        unbound()
    except NameError as e:
        assert "never" in str(e)
    else:
        raise AssertionError("an empty cell must stay empty")


def closure_over_frame_cell_returned(x):
    k = 3

    def scale(t):
        return t * k

    return scale(x), scale


def test_closure_over_the_frame_own_cell_still_works():
    report = explained(closure_over_frame_cell_returned, torch.arange(3.0))
    out, scale = report.result
    assert torch.equal(out, torch.arange(3.0) * 3)
    assert torch.equal(scale(torch.ones(2)), torch.full((2,), 3.0))
