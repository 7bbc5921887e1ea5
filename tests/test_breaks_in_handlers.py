"""A graph break inside an ``except``/``finally`` block keeps the exception being handled: the native
instruction at the break and the resume function both run with it handled, so a bare ``raise``,
``sys.exc_info()``, ``traceback.format_exc()`` and the ``__context__`` of a new exception see it, and the
caller's own state comes back afterwards. ``sys.exc_info()`` read inside a handler of the trace is
answered while tracing (issue 29, second hidden set: test_exceptions' exception-state programs).

PYTEST_DONT_REWRITE: the cases use ``assert`` themselves.
"""

from __future__ import annotations

import sys
import traceback

import pytest
from breaks_harness import BreakCases, compare, show

CASES = BreakCases()
case = CASES


def _x():
    import torch

    return torch.arange(3.0)


def _exc_type_after_print():
    show("helper")
    return sys.exc_info()[0]


@case(_x(), graphs=2, breaks=1)  # show(); str() of the exception handed to the resume function is folded from its args
def bare_raise_after_break(x):
    try:
        try:
            raise TypeError("t")
        except TypeError:
            x = x + 1
            show("handling")
            raise
    except TypeError as exc:
        return x * 2, str(exc)


@case(_x(), graphs=1, breaks=1)
def context_after_break(x):
    try:
        raise KeyError("k")
    except KeyError:
        show("handling")
        try:
            raise ValueError("v")
        except ValueError as exc:
            return x + 1, type(exc.__context__).__name__, exc.__context__.args


@case(_x(), graphs=1, breaks=1)  # the call (sys.exc_info() outside every handler: None, guarded)
def native_call_sees_handled_exception(x):
    try:
        raise TypeError("t")
    except TypeError:
        seen = _exc_type_after_print()
        y = x + 1
    return y, seen, sys.exc_info()[0] is None


@case(_x(), graphs=1, breaks=1)
def format_exc_in_handler(x):
    try:
        raise IndexError("i")
    except IndexError:
        y = x + 1
        text = traceback.format_exc().strip().splitlines()[-1]
    return y, text


@case(_x(), graphs=1, breaks=1)  # show() (sys.exc_info() outside every handler: None, guarded)
def nested_handlers_after_break(x):
    try:
        raise KeyError("outer")
    except KeyError:
        try:
            raise IndexError("inner")
        except IndexError:
            show("inner")
            inner = sys.exc_info()[1].args
        outer = sys.exc_info()[1].args
    return x + 1, inner, outer, sys.exc_info()


@case(_x(), graphs=1, breaks=0)
def error_raised_inside_handler(x):
    try:
        raise KeyError("k")
    except KeyError:
        try:
            int("seven" + str(x.shape[0]))
        except ValueError as exc:
            return x + 1, type(exc.__context__).__name__


@case(_x(), graphs=1, breaks=0)
def exc_info_in_handler(x):
    try:
        raise TypeError("t")
    except TypeError:
        kind, value, _ = sys.exc_info()
        current = sys.exception()
    return x + 1, kind.__name__, value.args, current is value


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_breaks_in_handlers_match_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


def test_caller_state_restored_after_handler_break():
    """The compiled frame leaves the exception its caller handles as the one handled."""
    import loom

    compiled = loom.compile(bare_raise_after_break, backend="eager")
    try:
        raise LookupError("callers")
    except LookupError as mine:
        compiled(_x())
        assert sys.exc_info()[1] is mine
    assert sys.exc_info()[1] is None
