"""An exception the trace raised (and caught) has a ``__traceback__`` in eager: rebuilt at a graph break
(a break inside its handler, or one that hands it on), it must have one too, or ``exc.__traceback__ is not
None`` is a wrong answer. It is raised and caught again as it is rebuilt, its chain kept as it was."""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()


def break_in_the_handler(x):
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise ValueError("v")  # noqa: B904
    except ValueError as e:
        print("handling", file=_SINK)
        return x + 1, e.__traceback__ is not None, type(e.__context__).__name__, e.__suppress_context__


def raised_object_from_outside(x, err):
    try:
        raise err
    except ValueError as e:
        return x + 1, e.__traceback__ is not None


def _compare(fn, *args):
    expected = fn(torch.ones(3), *args)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(3), *args)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]


def test_exception_rebuilt_in_its_handler_has_a_traceback():
    _compare(break_in_the_handler)


def test_exception_from_outside_raised_in_the_trace_has_a_traceback():
    _compare(raised_object_from_outside, ValueError("v"))
