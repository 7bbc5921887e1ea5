"""A list or range iterator made in the trace and held by a name across a graph break: rebuilt as
``iter_at(the live list or the range, its position)``, an iterator of the same type (it used to stop the
frame from being split, so nothing was compiled). The list is the frame's own: appends made after the
break are seen, and an exhausted iterator stays exhausted."""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()
X = torch.arange(3.0)


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(p, q) for p, q in zip(a, b))
    return a == b


def list_iterator_partly_taken(x):
    items = [x, x + 1, x + 2]
    it = iter(items)
    y = next(it) * 2
    print("break", file=_SINK)
    items.append(x + 3)  # the rebuilt iterator walks the very list: it sees this
    return y + next(it), list(it), type(it).__name__


def exhausted_list_iterator(x):
    items = [1]
    it = iter(items)
    list(it)
    y = x + 1
    print("break", file=_SINK)
    items.append(2)
    return y, list(it), type(it).__name__


def range_iterator_partly_taken(x):
    it = iter(range(10, 20, 3))
    y = x + next(it)
    print("break", file=_SINK)
    return y + next(it), list(it), type(it).__name__


def test_a_list_iterator_in_a_local_goes_on_over_the_live_list():
    report = explained(list_iterator_partly_taken, X)
    assert same(report.result, list_iterator_partly_taken(X))
    assert (report.graph_count, report.break_count) == (2, 1)


def test_an_exhausted_list_iterator_is_rebuilt_exhausted():
    report = explained(exhausted_list_iterator, X)
    assert same(report.result, exhausted_list_iterator(X))
    assert report.graph_count >= 1 and report.break_count == 1


def test_a_range_iterator_in_a_local_is_rebuilt_where_it_stood():
    report = explained(range_iterator_partly_taken, X)
    assert same(report.result, range_iterator_partly_taken(X))
    assert report.graph_count >= 1 and report.break_count == 1
