"""Graph breaks inside try/except/finally blocks, exceptions escaping across a break, and breaks inside
inlined calls: loom keeps going where it cannot capture, and never changes the answer.

PYTEST_DONT_REWRITE: the cases use ``assert`` themselves, and their messages must be Python's own.

The same harness as ``test_graph_breaks.py`` (``breaks_harness``): each case runs eagerly and through
``loom.compile`` on copies of the same inputs, and loom must report the graphs and breaks ``expect``-ed.
"""

from __future__ import annotations

import pytest
import torch
from breaks_harness import BreakCases, compare, show

import loom

CASES = BreakCases()
case = CASES


def pos():
    return torch.rand(4) + 0.5


def neg():
    return -torch.rand(4) - 0.5


# -- try / except / finally ---------------------------------------------------------------------------------
@case(pos(), graphs=2, breaks=1)
def print_inside_try_finally(x):
    try:
        y = x + 1
        show("in try")
    finally:
        y = y * 2
    return y


@case(pos(), graphs=2, breaks=1)
def print_inside_try_except(x):
    try:
        y = x + 1
        show("fine")
    except ValueError:
        y = x - 1
    return y * 3


def raise_value_error(message):
    raise ValueError(message)


SKIPPED_RAISER = loom.disable(raise_value_error)


@case(pos(), graphs=2, breaks=1)
def native_exception_caught_after_break(x):
    y = x + 1
    try:
        SKIPPED_RAISER("boom")
    except ValueError:
        y = y * 10
    return y


@case(pos(), graphs=2, breaks=1)
def message_of_a_native_exception(x):
    # The handler runs traced; str(exc) is folded from the exception's args (guarded), not a second break.
    y = x + 1
    try:
        SKIPPED_RAISER("boom")
    except ValueError as exc:
        y = y * 10
        message = str(exc)
    return y, message


@case(pos(), graphs=2, breaks=1)
def native_exception_runs_finally(x):
    y = x + 1
    try:
        try:
            SKIPPED_RAISER("inner")
        finally:
            y = y * 2
    except ValueError:
        y = y - 5
    return y


@case(torch.randn(2, 3), graphs=1, breaks=1)
def tensor_error_caught_by_user(x):
    try:
        y = x @ x  # shapes do not match: eager raises RuntimeError
    except RuntimeError:
        y = x.sum()
    return y


@case(pos(), graphs=1, breaks=0)
def exception_raised_and_caught_in_trace(x):
    try:
        raise KeyError("k")
    except KeyError:
        y = x + 1
    return y


@case(pos(), graphs=1, breaks=0)
def lookup_error_caught_in_trace(x):
    d = {"a": 1}
    try:
        v = d["b"]
    except KeyError:
        v = 2
    return x * v


# -- exceptions escaping: the frame ends by raising, after its graph; the raise is no graph break ----------------
@case(pos(), graphs=1, breaks=0)
def exception_escapes(x):
    y = x + 1
    raise ValueError(f"bad value {y.shape[0]}")


@case(pos(), graphs=1, breaks=1)
def exception_escapes_after_print(x):
    y = x + 1
    show("about to fail")
    raise RuntimeError(f"failed with {tuple(y.shape)}")


@case(torch.randn(2, 3), graphs=0, breaks=1)
def tensor_error_escapes(x):
    return x @ x


@case(pos(), graphs=1, breaks=0)
def assertion_error_escapes(x):
    y = x * 2
    assert y.shape[0] == 5, "wrong length"
    return y


# -- breaks inside inlined calls ------------------------------------------------------------------------------
def helper_with_print(y):
    show("in helper")
    return y * 2


def helper_with_branch(y):
    if y.sum() > 0:
        return y + 100
    return y - 100


def outer_helper(y):
    return helper_with_print(y + 1) - 1


@case(pos(), graphs=3, breaks=1)  # one construct: the caller's break at the call, the helper's at the print
def break_in_inlined_call(x):
    a = x + 1
    b = helper_with_print(a)
    return b + 1


@case(pos(), graphs=4, breaks=1)
@case(neg(), graphs=4, breaks=1)
def data_dependent_branch_in_inlined_call(x):
    # The caller breaks at the call ([x * 2]); the helper runs as its own frame and breaks at its
    # branch ([sum > 0], then [y +/- 100]), the same construct; the caller resumes ([b.sum()]).
    a = x * 2
    b = helper_with_branch(a)
    return b.sum()


@case(pos(), graphs=5, breaks=1)  # one print, met by three frames
def break_two_levels_deep(x):
    a = x + 1
    b = outer_helper(a)
    return b * 2


@case(pos(), graphs=2, breaks=1)
def breaks_in_two_calls(x):
    # The caller breaks at each call, the helper's frame (compiled once, its cached entry serves the second
    # call) at its print: one construct; graphs: the helper's [y * 2] and the caller's [a + b].
    a = helper_with_print(x)
    b = helper_with_print(a)
    return a + b


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_graph_breaks_match_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
