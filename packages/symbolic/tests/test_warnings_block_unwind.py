"""A call made after the graph inside a replayed ``warnings.catch_warnings`` block that raises leaves the
blocks the replay entered first, as eager's ``with`` statements do: no filter of the block outlives the frame."""

from __future__ import annotations

import warnings

import pytest

from loom_symbolic.variables.warnings_blocks import EnterBlock, ExitBlock, FilterCall, LeavingOnError


def _fail():
    raise OSError("broken stream")


def test_a_raising_call_inside_replayed_blocks_leaves_them():
    before = list(warnings.filters)
    EnterBlock({})()
    LeavingOnError(FilterCall(warnings.simplefilter, ("ignore",), {}))()
    EnterBlock({"action": "error"})()
    assert warnings.filters != before
    with pytest.raises(OSError, match="broken stream"):
        LeavingOnError(_fail)()
    assert warnings.filters == before  # both blocks left, innermost first


def test_calls_that_return_keep_the_block_open_until_its_exit():
    before = list(warnings.filters)
    EnterBlock({})()
    assert LeavingOnError(lambda: 7)() == 7
    LeavingOnError(FilterCall(warnings.simplefilter, ("ignore",), {}))()
    assert warnings.filters[0][0] == "ignore"
    ExitBlock()()
    assert warnings.filters == before
    assert LeavingOnError(_fail).__qualname__ == "_fail"  # as explain names the replayed call
