"""A graph break inside a ``with`` or ``try`` block whose body can only leave it by raising: the resume
function starts in the middle of the block. Its stack depth could not be computed (the handler's entry
depth came out one short), so the frame ran as it was, nothing compiled; the resume function now
re-enters the block at the resume point (``resume._reenter_try_block``) and the code around the break
is compiled, with eager's answer and eager's exceptions.
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
