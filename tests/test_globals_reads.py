"""``globals()`` in compiled code: reads by name (``in``, ``[]``, ``get``) are global reads (one graph,
guarded as a global name read is, seeing the trace's own ``global`` stores), and stores by name are
``global`` stores; anything else breaks."""

from __future__ import annotations

import pytest
import torch

import loom

SCALE = 3.0


def reads(x):
    if "SCALE" in globals():
        x = x * globals()["SCALE"]
    if "LATER" in globals():
        x = x + 100
    return x + globals().get("LATER", 1.0) + globals().get("SCALE")


def own_stores(x):
    global MADE
    MADE = 2
    y = x * globals()["MADE"] if "MADE" in globals() else x
    del MADE
    return y + ("MADE" in globals()) + (globals().get("MADE") is None)


def missing_key(x):
    return x + globals()["NOT_DEFINED_ANYWHERE"]


def passed_on(x):
    return x + (len(globals()) > 0)  # len(): the dict is rebuilt (globals() again) for the native call


def writes(x):
    globals()["WRITTEN"] = 1
    return x + 1


def _counts(fn, *args):
    report = loom.explain(fn)(*args)
    return report, report.graph_count, report.break_count


@pytest.fixture(autouse=True)
def _fresh():
    loom.reset()
    yield
    loom.reset()
    globals().pop("LATER", None)
    globals().pop("WRITTEN", None)


@pytest.mark.parametrize("fn", [reads, own_stores])
def test_reads_are_one_graph(fn):
    expected = fn(torch.ones(2))
    report, graphs, breaks = _counts(fn, torch.ones(2))
    assert torch.equal(report.result, expected) and (graphs, breaks) == (1, 0)
    assert torch.equal(loom.compile(fn, backend="eager", options={"strict": True})(torch.ones(2)), expected)


def test_reads_are_guarded_like_global_reads():
    global SCALE
    compiled = loom.compile(reads, backend="eager", options={"strict": True})
    assert torch.equal(compiled(torch.ones(2)), reads(torch.ones(2)))
    try:
        SCALE = 5.0
        assert torch.equal(compiled(torch.ones(2)), reads(torch.ones(2)))
        globals()["LATER"] = 7.0  # was absent: a new compile, not the old answer
        assert torch.equal(compiled(torch.ones(2)), reads(torch.ones(2)))
    finally:
        SCALE = 3.0
    assert loom.stats()["graphs"] == 3


def test_missing_key_raises_keyerror_as_eager():
    with pytest.raises(KeyError, match="NOT_DEFINED_ANYWHERE"):
        loom.compile(missing_key, backend="eager")(torch.ones(2))


def test_writes_by_name_are_global_stores():
    report, graphs, breaks = _counts(writes, torch.ones(2))
    assert (graphs, breaks) == (1, 0)
    globals().pop("WRITTEN", None)
    assert torch.equal(loom.compile(writes, backend="eager", options={"strict": True})(torch.ones(2)), torch.ones(2) + 1)
    assert globals()["WRITTEN"] == 1


@pytest.mark.parametrize("fn", [passed_on])
def test_other_uses_break(fn):
    report, _, breaks = _counts(fn, torch.ones(2))
    assert torch.equal(report.result, fn(torch.ones(2))) and breaks >= 1
    assert "globals()" in report.breaks[0].what


def held_across_a_break(x):
    g = globals()
    y = x + 1
    print("break", file=_SINK)
    return y + g["SCALE"], "SCALE" in g, g.get("LATER", 0.5)


_SINK = __import__("io").StringIO()


def test_the_globals_dict_held_across_a_break_is_read_by_name_in_the_resumed_graph():
    # (the resume function took it as an ordinary dict and guarded its keys, which loom's own names change:
    # the guards failed on their own frame, and it ran uncompiled with a warning)
    import warnings

    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(held_across_a_break, backend="eager", options={"strict": True})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(2):
            got, want = compiled(x), held_across_a_break(x)
            torch.testing.assert_close(got[0], want[0])
            assert got[1:] == want[1:]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (2, 1, 0)
