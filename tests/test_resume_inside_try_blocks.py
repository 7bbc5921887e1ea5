"""A graph break inside a ``with`` or ``try`` block whose body can only leave it by raising: the resume
function starts in the middle of the block. Its stack depth could not be computed (the handler's entry
depth came out one short), so the frame ran as it was, nothing compiled; the resume function now
re-enters the block at the resume point (``resume._reenter_try_block``) and the code around the break
is compiled, with eager's answer and eager's exceptions.

An exception the breaking call raised reaches the resume function's handler from the frame; a ``with``
block's cleanup hands its ``__traceback__`` to ``__exit__``. That read was refused (an exception from
outside the trace), so the resume function ran as it was; it is now the exception's real traceback,
guarded to be one (``ExceptionVariable._frame_traceback``).
"""

from __future__ import annotations

import contextlib

import pytest
import torch

import loom

_LOG = []


@torch._dynamo.disable
def _disabled_add(a, b):
    return a + b


class _Swallowing:
    def __enter__(self):
        _LOG.append("enter")
        return self

    def __exit__(self, exc_type, exc, tb):
        _LOG.append(("exit", exc_type.__name__ if exc_type else None))
        return exc_type is KeyError


def user_manager_swallows(x):
    _LOG.clear()
    y = x + 1
    with _Swallowing():
        y = _disabled_add(y, x)
        raise KeyError("gone")
    return y * 2, list(_LOG)


def suppress_swallows(x):
    y = x + 1
    with contextlib.suppress(KeyError):
        y = _disabled_add(y, x) * 3
        raise KeyError("gone")
    return y - 1


def user_manager_lets_it_through(x):
    _LOG.clear()
    y = x + 1
    try:
        with _Swallowing():
            y = _disabled_add(y, x)
            raise ValueError("through")
    except ValueError as e:
        return y * 2, e.args, list(_LOG)


def nested_managers(x):
    _LOG.clear()
    y = x + 1
    with _Swallowing(), contextlib.suppress(IndexError):
        y = _disabled_add(y, x)
        raise IndexError("inner")
    return y + 1, list(_LOG)


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    return a == b


@pytest.mark.parametrize("fn", [user_manager_swallows, suppress_swallows, user_manager_lets_it_through,
                                nested_managers])
def test_a_break_in_a_block_left_only_by_raising_is_resumed(fn):
    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    report = loom.explain(fn, backend="eager", options={"strict": True})(x)
    assert _same(report.result, expected)
    assert report.graph_count >= 1  # the code before the break is compiled (the frame ran as it was)
    assert report.break_count == 1
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    assert _same(compiled(x), expected)
    assert _same(compiled(x), expected)


@torch._dynamo.disable
def _disabled_raise(t):
    raise ValueError(f"bad {t.shape[0]}")


class _SeesTraceback:
    seen = None

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        _SeesTraceback.seen = (exc_type.__name__, tb is exc.__traceback__, tb is not None)
        return True


def raised_under_no_grad(x):
    y = x + 1
    try:
        with torch.no_grad():
            y = y * 2
            _disabled_raise(y)
    except ValueError:
        pass
    return y + 1, torch.is_grad_enabled()


def raised_into_user_exit(x):
    y = x + 1
    with _SeesTraceback():
        y = y * 2
        _disabled_raise(y)
    return y + 1, _SeesTraceback.seen


def traceback_of_an_argument(x, exc):
    return x + 1, exc.__traceback__ is None


@pytest.mark.parametrize("fn", [raised_under_no_grad, raised_into_user_exit])
def test_an_exception_from_the_breaking_call_reaches_exit_with_its_traceback(fn):
    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    report = loom.explain(fn, backend="eager", options={"strict": True})(x)
    assert _same(report.result, expected)
    assert (report.graph_count, report.break_count) == (2, 1)  # the handler's resume function is compiled


def test_the_traceback_of_an_exception_argument_is_guarded():
    never_raised = ValueError("a")
    try:
        raise ValueError("b")
    except ValueError as caught:
        raised = caught
    loom.reset()
    compiled = loom.compile(traceback_of_an_argument, backend="eager", options={"strict": True})
    x = torch.ones(1)
    for exc in (never_raised, raised, never_raised):
        assert _same(compiled(x, exc), traceback_of_an_argument(x, exc))
    assert loom.stats()["graph_breaks"] == 0
