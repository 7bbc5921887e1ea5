"""The traceback of an exception the trace raised lists the frames and lines of that raise, which the trace has
no stand-in for. Where one has to leave the trace (read after a break, handed to ``traceback.extract_tb``), the
graph breaks where the exception was raised and the raise runs as ordinary Python:
rebuilding it after the graph instead (raised again in a helper) gave the helper's frame and line, a wrong
answer (after the traceback tests of PyTorch's test/dynamo/test_ctx_manager.py)."""

import contextlib
import io
import traceback

import pytest
import torch

loom = pytest.importorskip("loom", reason="compiles through the loom facade")

X = torch.arange(3.0)
_SINK = io.StringIO()


def _frames(tb, fn):
    return [(f.name, f.line, f.lineno - fn.__code__.co_firstlineno) for f in traceback.extract_tb(tb)]


def lines_after_a_break(x):
    print("b", file=_SINK)
    try:
        raise KeyError(3)
    except KeyError as e:
        return x + 1, _frames(e.__traceback__, lines_after_a_break)


def traceback_kept_across_a_break(x):
    try:
        raise KeyError(3)
    except KeyError as e:
        tb = e.__traceback__
    print("b", file=_SINK)
    return x + 1, _frames(tb, traceback_kept_across_a_break)


def line_number_read_in_the_trace(x):
    try:
        raise ValueError("v")
    except ValueError as e:
        tb = e.__traceback__
    return (
        x * 2,
        tb.tb_lineno - line_number_read_in_the_trace.__code__.co_firstlineno,
        tb.tb_frame.f_code.co_name,
    )


def _raiser(t):
    raise IndexError(int(t.numel()))


def frames_of_a_raise_in_a_callee(x):
    y = x.sin()
    try:
        _raiser(y)
    except IndexError as e:
        return y, [f.name for f in traceback.extract_tb(e.__traceback__)], e.args


@contextlib.contextmanager
def _plain():
    yield


def frames_through_a_contextmanager(x):
    try:
        with _plain():
            raise RuntimeError(42)
    except RuntimeError as e:
        return x + 1, _frames(e.__traceback__, frames_through_a_contextmanager)


@pytest.mark.parametrize(
    "fn",
    [
        lines_after_a_break,
        traceback_kept_across_a_break,
        line_number_read_in_the_trace,
        frames_of_a_raise_in_a_callee,
        frames_through_a_contextmanager,
    ],
    ids=lambda f: f.__name__,
)
def test_traceback_matches_eager(fn):
    expected = fn(X)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):  # the second call runs the cached entries
        actual = compiled(X)
        torch.testing.assert_close(actual[0], expected[0])
        assert actual[1:] == expected[1:]


def test_the_break_says_where_the_raise_runs():
    report = loom.explain(frames_of_a_raise_in_a_callee)(X)
    assert any(
        "raise and the rest of the function run as ordinary Python" in b.hint for b in report.breaks
    ), [(b.what, b.hint) for b in report.breaks]


def test_frames_read_in_the_trace_need_no_break():
    # tb_lineno, tb_next and tb_frame.f_code of a traceback whose frames the trace saw are known there
    report = loom.explain(line_number_read_in_the_trace)(X)
    assert (report.graph_count, report.break_count) == (1, 0), report.breaks
