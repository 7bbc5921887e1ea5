"""A graph that updates a tensor input in place while also taking a NumPy array (or scalar) argument:
the storage-overlap guard reads the array's memory, so the frame compiles to one graph, answers as
eager does, and compiles again when the array starts or stops sharing the tensor's memory."""

from __future__ import annotations

import pytest
import torch

import loom

np = pytest.importorskip("numpy")

STRICT = {"strict": True}  # an internal error raises instead of running the frame uncompiled


def add_then_read(x, a):
    x.add_(1)
    return x + torch.from_numpy(a)


def iadd_then_read(x, a):
    x += 1
    return x * torch.from_numpy(a).sum()


def scale_by_scalar(x, s):
    x.add_(1)
    return x * s


def _run(fn, backend, *args):
    """fn compiled on ``args`` (called as given: the caller makes fresh ones for eager)."""
    return loom.compile(fn, backend=backend, options=STRICT)(*args)


@pytest.fixture(autouse=True)
def _fresh():
    loom.reset()
    yield
    loom.reset()


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [add_then_read, iadd_then_read])
def test_separate_array_one_graph(backend, fn):
    expected = fn(torch.zeros(3), np.arange(3, dtype=np.float32))
    x = torch.zeros(3)
    assert torch.equal(_run(fn, backend, x, np.arange(3, dtype=np.float32)), expected)
    assert torch.equal(x, torch.ones(3))
    assert torch.equal(_run(fn, backend, torch.zeros(3), np.arange(3, dtype=np.float32)), expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def add_break_read(x, y):
    x.add_(1)
    z = x + y
    loom.graph_break()
    return z * 2


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("alias", ["ndarray", "tensor"])
def test_memory_shared_through_two_storages_runs_as_is(backend, alias):
    """``a = x.numpy()`` (or ``torch.from_numpy`` of it): eager's read sees the update, which a
    functionalizing backend would miss (it sees two storages). The frame compiled for separate memory
    must not answer that call, and the shared call itself runs as Python."""
    def args(shared):
        x = torch.zeros(3)
        y = x.numpy() if shared else np.zeros(3, np.float32)
        return x, (y if alias == "ndarray" else torch.from_numpy(y))

    fn = add_then_read if alias == "ndarray" else add_break_read
    compiled = loom.compile(fn, backend=backend, options=STRICT)
    for shared in (False, True, False, True):
        assert torch.equal(compiled(*args(shared)), fn(*args(shared))), shared
    stats = loom.stats()
    # the separate-memory calls: one graph (and the resumed function's after the break); the shared ones run as is
    assert stats["graphs"] == (1 if alias == "ndarray" else 2) and stats["frames_skipped"] >= 2, stats
    report = loom.explain(fn, backend=backend)(*args(True))
    assert report.graph_count == 0 and len(report.breaks) == 1
    assert "share memory through two storages" in report.breaks[0].what and report.breaks[0].lineno is not None


def test_numpy_scalar_is_fresh_memory():
    expected = scale_by_scalar(torch.zeros(3), np.float32(2.0))
    x = torch.zeros(3)
    got = _run(scale_by_scalar, "eager", x, np.float32(2.0))
    assert torch.equal(got, expected) and torch.equal(x, torch.ones(3))
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
