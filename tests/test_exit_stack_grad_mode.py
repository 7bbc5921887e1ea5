"""Grad-mode managers entered by hand: ``contextlib.ExitStack.enter_context(torch.no_grad())`` (which reads
``type(cm).__enter__`` and binds ``__exit__`` with ``types.MethodType``) and ``cm.__enter__()`` /
``cm.__exit__(...)`` calls are traced into the graph, with eager's grad mode everywhere, breaks included."""

from __future__ import annotations

import contextlib
import io
import types

import pytest
import torch

import loom

_SINK = io.StringIO()
W = torch.randn(3, requires_grad=True)


def stack_no_grad_then_enable_grad(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        y = x * W
        stack.enter_context(torch.enable_grad())
        z = x * W
        stack.callback(log.append, "closed")
    return y, z, log, torch.is_grad_enabled()


def stack_set_grad_enabled(x):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.set_grad_enabled(False))
        y = x * W
    return y, torch.is_grad_enabled()


def stack_closed_by_hand(x):
    stack = contextlib.ExitStack()
    stack.enter_context(torch.no_grad())
    y = x * W
    stack.close()
    return y, x * W, torch.is_grad_enabled()


def stack_left_by_an_exception(x):
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            raise ValueError("leave")
    except ValueError:
        pass
    return x * W, torch.is_grad_enabled()


def enter_and_exit_by_hand(x):
    cm = torch.no_grad()
    cm.__enter__()
    y = x * W
    cm.__exit__(None, None, None)
    return y, x * W, torch.is_grad_enabled()


def bound_by_method_type(x):
    cm = torch.enable_grad()
    exit_ = type(cm).__exit__
    with torch.no_grad():
        type(cm).__enter__(cm)
        y = x * W
        bound = types.MethodType(exit_, cm)
        bound(None, None, None)
        z = x * W
    return y, z, torch.is_grad_enabled()


CAPTURED = [stack_no_grad_then_enable_grad, stack_set_grad_enabled, stack_closed_by_hand,
            enter_and_exit_by_hand, bound_by_method_type]


def stack_with_a_break(x):
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        y = x * W
        print("break", file=_SINK)
        z = x * W
    return y, z, torch.is_grad_enabled()


def entered_by_hand_with_a_break(x):
    cm = torch.no_grad()
    cm.__enter__()
    y = x * W
    print("break", file=_SINK)
    cm.__exit__(None, None, None)
    return y, x * W, torch.is_grad_enabled()


def _same(actual, expected):
    for a, e in zip(actual, expected, strict=True):
        if isinstance(e, torch.Tensor):
            assert a.requires_grad == e.requires_grad
            torch.testing.assert_close(a, e)
        else:
            assert a == e


def _check(fn, graphs=None, breaks=None):
    compiled = loom.compile(fn, backend="aot_eager")
    x = torch.ones(3)
    for _ in range(2):
        _same(compiled(x), fn(x))
        assert torch.is_grad_enabled()
    stats = loom.stats()
    if graphs is not None:
        assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


@pytest.mark.parametrize("fn", CAPTURED, ids=lambda f: f.__name__)
def test_grad_mode_entered_by_hand_is_one_graph(fn):
    _check(fn, 1, 0)


def stack_left_by_an_exception_with_a_callback(x):
    log = []
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            stack.callback(log.append, "closed")
            y = x * W
            raise ValueError("leave")
    except ValueError as exc:
        z = x * W + len(exc.args)
    return y, z, log, torch.is_grad_enabled()


def stack_callback_raising_over_an_exception(x):
    try:
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            stack.callback(lambda: 1 / 0)
            raise ValueError("leave")
    except ZeroDivisionError as exc:  # chained to the ValueError by ExitStack.__exit__
        context = type(exc.__context__).__name__
    return x * W, context, torch.is_grad_enabled()


@pytest.mark.parametrize("fn", [stack_left_by_an_exception, stack_left_by_an_exception_with_a_callback,
                                stack_callback_raising_over_an_exception], ids=lambda f: f.__name__)
def test_stack_left_by_an_exception_restores_grad_mode(fn):
    # One graph on every version: 3.13's ExitStack.__exit__ reads the exception's __traceback__ (its
    # ``exc_details = type(exc), exc, exc.__traceback__``), which the translator models.
    _check(fn, 1, 0)


@pytest.mark.parametrize("fn", [stack_with_a_break, entered_by_hand_with_a_break], ids=lambda f: f.__name__)
def test_a_break_while_entered_by_hand_keeps_eagers_grad_mode(fn):
    _check(fn, 2, 1)


def no_grad_exit_never_entered(x):
    cm = torch.no_grad()
    cm.__exit__(None, None, None)  # no_grad's prev is False until it is entered: grad mode goes off
    y = x * W
    torch.set_grad_enabled(True)
    return y, torch.is_grad_enabled()


def set_grad_enabled_entered_later(x):
    cm = torch.set_grad_enabled(False)
    torch.set_grad_enabled(True)
    with contextlib.ExitStack() as stack:
        stack.enter_context(cm)  # its __enter__ switches to its mode again
        y = x * W
    return y, torch.is_grad_enabled()


@pytest.mark.parametrize("fn", [no_grad_exit_never_entered, set_grad_enabled_entered_later],
                         ids=lambda f: f.__name__)
def test_manager_state_as_in_eager(fn):
    _check(fn, 1, 0)


def enable_grad_exit_never_entered(x):
    cm = torch.enable_grad()
    cm.__exit__(None, None, None)  # enable_grad has no prev until it is entered: AttributeError
    return x + 1


def test_exit_of_a_manager_never_entered_raises_as_in_eager():
    with pytest.raises(AttributeError):
        enable_grad_exit_never_entered(torch.ones(3))
    with pytest.raises(AttributeError):
        loom.compile(enable_grad_exit_never_entered, backend="eager")(torch.ones(3))
    assert torch.is_grad_enabled()
