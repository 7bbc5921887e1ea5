"""An exception no handler of the compiled frame catches ends the frame there, by raising: ``loom.stats()``
counts no graph break for it (torch.compile counts none either), while the graph before it counts as a graph,
the exception is eager's, and ``fullgraph=True`` still refuses the frame as torch.compile does."""

import pytest
import torch
from breaks_harness import show

import loom


def _raises_after_work(x):
    y = x + 1
    raise ValueError(f"bad {y.shape[0]}")


def _dict_item_deleted_then_read(x, d):
    del d["a"]
    return d["a"] + x


def _raises_from_helper(x):
    return _helper_that_raises(x * 2)


def _helper_that_raises(y):
    if y.shape[0] == 3:
        raise KeyError("three")
    return y


def _print_then_raise(x):
    y = x.sin()
    show("about to fail")
    raise RuntimeError(str(tuple(y.shape)))


def _caught_by_caller(x):
    try:
        return _raises_after_work(x)
    except ValueError as e:
        return x.cos(), str(e)


def _run(fn, *args):
    loom.reset()
    with pytest.raises(Exception) as compiled_error:
        loom.compile(fn, backend="eager")(*args)
    stats = loom.stats()
    with pytest.raises(Exception) as eager_error:
        fn(*args)
    assert type(compiled_error.value) is type(eager_error.value)
    assert compiled_error.value.args == eager_error.value.args
    return stats


def test_raise_after_graph_is_a_graph_and_no_break():
    stats = _run(_raises_after_work, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0


def test_failing_lookup_ends_the_frame_without_a_break():
    d = {"a": 1}
    stats = _run(_dict_item_deleted_then_read, torch.arange(3.0), d)
    assert stats["graph_breaks"] == 0
    assert d == {}  # the deletion before the failing read happened once


def test_raise_in_an_inlined_helper_escaping_the_frame():
    stats = _run(_raises_from_helper, torch.arange(3.0))
    assert stats["graph_breaks"] == 0


def test_a_real_break_before_the_raise_still_counts(capsys):
    stats = _run(_print_then_raise, torch.arange(3.0))
    assert stats["graph_breaks"] == 1  # the print
    assert capsys.readouterr().out == "about to fail\nabout to fail\n"  # loom's run, then eager's


def test_caught_by_the_caller_is_one_graph():
    x = torch.arange(3.0)
    loom.reset()
    result = loom.compile(_caught_by_caller, backend="eager")(x)
    expected = _caught_by_caller(x)
    assert torch.equal(result[0], expected[0]) and result[1] == expected[1]
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_fullgraph_still_refuses_a_frame_that_raises_out():
    loom.reset()
    with pytest.raises(loom.Unsupported, match="uncaught ValueError"):
        loom.compile(_raises_after_work, backend="eager", fullgraph=True)(torch.arange(3.0))
