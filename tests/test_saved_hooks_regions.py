"""``torch.autograd.graph.disable_saved_tensors_hooks(message)`` blocks (issue 29): a region of the graph entered
and left by two nodes, so a break inside costs one break (the resume function's graph re-enters the region)
instead of running the generator and the rest of the function as ordinary Python; the flag and its message
are eager's inside and after the block, also nested, as a decorator and when an exception leaves the block."""

from __future__ import annotations

import io

import pytest
import torch
from torch.autograd.graph import disable_saved_tensors_hooks

import loom

_SINK = io.StringIO()
_message = torch._C._autograd._saved_tensors_hooks_get_disabled_error_message


def _save_on_cpu_refused() -> bool:
    try:
        with torch.autograd.graph.save_on_cpu():
            return False
    except RuntimeError:
        return True


def break_inside(x):
    with disable_saved_tensors_hooks("not here"):
        y = x + 1
        print("break", file=_SINK)
        return y * 2


def nested_break(x):
    with disable_saved_tensors_hooks("outer"):
        y = x + 1
        with disable_saved_tensors_hooks("inner"):
            print("break", file=_SINK)
            y = y * 2
        z = y - 1
    return z


def decorated(x):
    @disable_saved_tensors_hooks("decorated")
    def f(a, b):
        return a + b

    return f(x, x * 2)


def exception_through(x):
    try:
        with disable_saved_tensors_hooks("raising"):
            y = x * 2
            raise ValueError("inside")
    except ValueError:
        y = x + 1
    return y


def message_inside(x):
    with disable_saved_tensors_hooks("outer"):
        with disable_saved_tensors_hooks("inner"):
            inner = _message()
        outer = _message()
    return x + len(inner) + len(outer), _message() is None


@pytest.mark.parametrize(("fn", "graphs", "breaks"), [
    (message_inside, 1, 0), (break_inside, 2, 1), (nested_break, 2, 1), (decorated, 1, 0), (exception_through, 1, 0),
])
def test_a_hooks_disabled_block_is_a_region(fn, graphs, breaks):
    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        actual = compiled(x)
        assert str(actual) == str(expected)
        assert _message() is None and not _save_on_cpu_refused()  # the flag is back
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
