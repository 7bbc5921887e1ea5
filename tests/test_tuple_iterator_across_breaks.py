"""An iterator over a tuple, made in the trace and held by a name across a graph break: rebuilt as
``iter(the items left)`` (it used to stop the frame from being split, so nothing was compiled), and the
same object still when a loop on the stack iterates it too or a container holds it."""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(p, q) for p, q in zip(a, b))
    return a == b


def partly_taken(x):
    y = x * 2
    it = iter((1, 2, 3))
    a = next(it)
    print("break", file=_SINK)
    return y + a + next(it) + sum(it)


def looped_and_named(x):
    it = iter((1, 2, 3, 4, 5))
    out = x * 1
    for v in it:
        print("break", file=_SINK)
        out = out + v * 10 + next(it, 100)
    return out


def held_by_a_list_too(x):
    it = iter((x, x + 1, x + 2))
    held = [it]
    first = next(it)
    print("break", file=_SINK)
    return first + next(held[0]) + next(it), list(it), held[0] is it


def test_a_tuple_iterator_in_a_local_is_rebuilt_where_it_stood():
    x = torch.arange(3.0)
    report = explained(partly_taken, x)
    assert same(report.result, partly_taken(x))
    assert (report.graph_count, report.break_count) == (2, 1)


def test_a_loop_over_a_named_iterator_goes_on_with_the_same_object():
    x = torch.arange(3.0)
    report = explained(looped_and_named, x)
    assert same(report.result, looped_and_named(x))
    assert report.graph_count >= 1


def test_an_iterator_a_list_holds_stays_one_object():
    x = torch.arange(3.0)
    report = explained(held_by_a_list_too, x)
    assert same(report.result, held_by_a_list_too(x))
    assert report.result[2] is True and report.graph_count == 2


def reversed_across_break(x):
    it = reversed((1, 2, 3))
    first = next(it)
    print("break", file=_SINK)
    return x + first + next(it), type(it).__name__


def test_a_reversed_iterator_still_runs_the_frame_as_it_is():
    x = torch.arange(3.0)
    report = explained(reversed_across_break, x)
    assert same(report.result, reversed_across_break(x))  # its type is not a tuple iterator's: not rebuilt as one
