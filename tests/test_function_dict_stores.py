"""Attributes kept in a real function's ``__dict__`` (a call counter, a cache, a flag a caller sets): a read the
trace found absent (``getattr(fn, "calls", 0)``) is guarded, so setting the name later recompiles (before, the
entry kept answering the default: a wrong answer on the second call), and ``fn.name = value`` /
``del fn.name`` in the frame are modelled as attribute stores replayed after the graph (were graph breaks)."""

from __future__ import annotations

import torch

import loom


def counted(x):
    counted.calls = getattr(counted, "calls", 0) + 1
    return x + counted.calls


def flagged_helper():
    pass


def reads_flag(x):
    if getattr(flagged_helper, "enabled", False):
        return x * 2
    return x + 1


def test_a_counter_kept_on_the_function_counts_every_call():
    counted.__dict__.pop("calls", None)
    loom.reset()
    compiled = loom.compile(counted, backend="eager", options={"strict": True})
    x = torch.arange(3.0)
    results = [compiled(x) for _ in range(3)]
    for i, result in enumerate(results, 1):
        torch.testing.assert_close(result, x + i)
    assert counted.calls == 3
    assert loom.stats()["graph_breaks"] == 0


def test_an_absent_attribute_is_guarded():
    flagged_helper.__dict__.pop("enabled", None)
    loom.reset()
    compiled = loom.compile(reads_flag, backend="eager", options={"strict": True})
    x = torch.arange(3.0)
    torch.testing.assert_close(compiled(x), x + 1)
    flagged_helper.enabled = True
    try:
        torch.testing.assert_close(compiled(x), x * 2)  # was x + 1: the absence was not guarded
    finally:
        del flagged_helper.enabled
    torch.testing.assert_close(compiled(x), x + 1)


def stores_and_deletes(x):
    stores_and_deletes.cache = x * 2
    out = x + stores_and_deletes.cache
    keys = sorted(stores_and_deletes.__dict__)
    del stores_and_deletes.cache
    return out, keys, hasattr(stores_and_deletes, "cache")


def test_store_and_delete_in_the_frame_stay_in_the_graph():
    x = torch.arange(3.0)
    expected = stores_and_deletes(x)
    loom.reset()
    report = loom.explain(stores_and_deletes)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), [(b.what, b.why) for b in report.breaks]
    loom.reset()
    actual = loom.compile(stores_and_deletes, backend="eager", options={"strict": True})(x)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:] == (["cache"], False)
    assert "cache" not in stores_and_deletes.__dict__


def test_deleting_a_missing_attribute_raises_pythons_error():
    def fn(x):
        del counted.nothing
        return x

    try:
        loom.compile(fn, backend="eager")(torch.ones(2))
    except AttributeError as e:
        assert str(e) == "'function' object has no attribute 'nothing'"
    else:
        raise AssertionError("eager raises AttributeError")


def test_a_functions_metadata_store_still_breaks():
    def helper():
        return 1

    def fn(x):
        helper.__defaults__ = ()
        return x + helper()

    loom.reset()
    report = loom.explain(fn)(torch.ones(2))
    assert any("__defaults__" in b.what for b in report.breaks)
