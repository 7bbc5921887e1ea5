"""``contextlib.redirect_stdout`` over tensor work is one graph (issue 29): the buffer ``io.StringIO()`` made
in the trace is made by the rewritten code where it leaves the trace, and ``sys.stdout = ...`` (a store on a
module built into the interpreter) is replayed after the graph in program order. ``sys.stdout`` is the
program's own after the frame, whether it returns, prints through a break inside the block, or raises."""

from __future__ import annotations

import contextlib
import io
import sys

import pytest
import torch
from breaks_harness import show

import loom


def redirected(x):
    buffer = io.StringIO()
    y = x.sin()
    with contextlib.redirect_stdout(buffer):
        y = y + x.cos()
        inside = sys.stdout
    return y.tan(), buffer, inside is buffer, sys.stdout is buffer


def prints_inside(x):
    buffer = io.StringIO("pre:")
    buffer.seek(4)
    with contextlib.redirect_stdout(buffer):
        y = x.sin()
        show("hello")
        y = y.cos()
    return y, buffer.getvalue()


def _raise_natively(t):
    raise KeyError("native")


def raises_at_a_break_inside(x):
    with contextlib.redirect_stdout(io.StringIO()):
        y = x.sin()
        show("in")
        sorted([1, 2], key=lambda v: 1 / 0)
        return y + 1


def redirect_stderr_to_none(x):
    with contextlib.redirect_stderr(None):
        y = x * 2
        inner = sys.stderr
    return y, inner


def bytes_buffer(x):
    made = io.BytesIO(b"abc")
    return x + 1, made.read()


def _outcome(fn, x):
    try:
        return fn(x)
    except Exception as exc:
        return type(exc), str(exc)


def _stats(fn, x):
    stdout, stderr = sys.stdout, sys.stderr
    loom.reset()
    actual = _outcome(loom.compile(fn, backend="eager"), x)
    assert sys.stdout is stdout and sys.stderr is stderr  # the program's streams, after the frame
    stats = loom.stats()
    return actual, (stats["graphs"], stats["graph_breaks"])


def _same(actual, expected):
    assert type(actual) is type(expected)
    for a, e in zip(actual, expected):
        if isinstance(e, torch.Tensor):
            torch.testing.assert_close(a, e)
        elif isinstance(e, io.StringIO):
            assert type(a) is io.StringIO and a.getvalue() == e.getvalue()
        else:
            assert a == e


def test_redirect_stdout_is_one_graph():
    x = torch.randn(3)
    actual, counts = _stats(redirected, x)
    _same(actual, redirected(x))
    assert counts == (1, 0)
    assert actual[2] is True and actual[3] is False


@pytest.mark.parametrize("fn", [prints_inside, raises_at_a_break_inside, redirect_stderr_to_none, bytes_buffer])
def test_eager_answer_and_streams_restored(fn):
    x = torch.randn(3)
    actual, _ = _stats(fn, x)
    _same(actual, _outcome(fn, x))


def test_a_buffer_made_in_the_trace_is_one_object():
    def twice(x):
        made = io.StringIO()
        return x + 1, made, made

    _, made, again = loom.compile(twice, backend="eager")(torch.ones(2))
    assert type(made) is io.StringIO and made is again


def test_a_cached_entry_restores_the_stdout_of_its_call():
    compiled = loom.compile(redirected, backend="eager")
    loom.reset()
    stdout = sys.stdout
    try:
        for _ in range(2):  # the second call runs the cached entry, under another stream of the same type
            mine = sys.stdout = io.StringIO()
            compiled(torch.ones(3))
            assert sys.stdout is mine
    finally:
        sys.stdout = stdout
    assert loom.stats()["cache_hits"] >= 1
