"""A bare ``raise`` where nothing is being handled (issue 29, Paddle's SOT exception tests): CPython raises
``RuntimeError("No active exception to reraise")``. Where the trace knows no exception is handled, in the
frame or where it is called (guarded, as ``sys.exc_info()`` is), it raises that error while tracing, so an
``except RuntimeError`` around it stays in the graph; called from an ``except`` block, the bare raise
re-raises the caller's exception, as eager does."""

import pytest
import torch
from breaks_harness import compare

import loom


def caught(x):
    try:
        x = x + 1
        raise
    except RuntimeError as e:
        x = x - len(str(e))
    return x * 4


def _helper(t):
    raise


def caught_from_a_helper(x):
    try:
        _helper(x)
    except RuntimeError:
        x = x * 3
    return x + 1


def uncaught(x):
    x = x + 1
    raise


def test_a_caught_bare_raise_stays_in_the_graph():
    for fn in (caught, caught_from_a_helper):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)


def test_an_uncaught_bare_raise_raises_the_runtime_error():
    compare(uncaught, torch.arange(3.0))  # same error and message as eager
    loom.reset()
    with pytest.raises(RuntimeError, match="No active exception to reraise"):
        loom.compile(uncaught, backend="eager")(torch.arange(3.0))


def test_called_from_an_except_block_it_reraises_the_callers_exception():
    loom.reset()
    compiled = loom.compile(caught, backend="eager")
    x = torch.arange(3.0)
    torch.testing.assert_close(compiled(x), caught(x))  # compiled where nothing is handled
    try:
        raise KeyError("outer")
    except KeyError:
        with pytest.raises(KeyError, match="outer"):
            compiled(x)  # eager re-raises the KeyError being handled here: not caught as a RuntimeError
