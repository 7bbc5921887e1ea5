"""The ``default`` backend: the generator for the graph's device, found by name in the registry."""

from __future__ import annotations

import warnings

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode

import loom_backends
from loom_backends import CompilerWarning, default
from loom_backends.default import backend_for


def _graph() -> torch.fx.GraphModule:
    return torch.fx.symbolic_trace(lambda x, y: torch.sin(x) + y)


@pytest.fixture
def stand_ins():
    """Stand-in generators registered as ``c`` and ``triton``; each records the graphs it gets."""
    calls: dict[str, list] = {"c": [], "triton": []}
    saved = {name: loom_backends.get(name) for name in calls if name in loom_backends.names()}

    def make(name):
        def stand_in(gm, example_inputs):
            calls[name].append([getattr(t, "device", None) for t in example_inputs])
            return gm.forward

        return stand_in

    for name in calls:
        loom_backends.register(name, replace=True)(make(name))
    yield calls
    for name in calls:
        if name in loom_backends.names():
            loom_backends.unregister(name)
        if name in saved:
            loom_backends.register(name)(saved[name])


def test_it_is_registered():
    assert "default" in loom_backends.names()
    assert default.DEVICE_BACKENDS == {"cpu": "c", "cuda": "triton"}


def test_cpu_graphs_go_to_c_and_cuda_graphs_to_triton(stand_ins):
    gm = _graph()
    x, y = torch.randn(3), torch.randn(3)
    compiled = loom_backends.get("default")(gm, [x, y])
    assert torch.equal(compiled(x, y), torch.sin(x) + y)
    assert stand_ins["c"] == [[torch.device("cpu")] * 2] and stand_ins["triton"] == []
    with FakeTensorMode():
        fx, fy = torch.empty(3, device="cuda"), torch.empty((), device="cpu")  # a CPU scalar beside CUDA
    loom_backends.get("default")(gm, [fx, fy])
    assert len(stand_ins["triton"]) == 1 and len(stand_ins["c"]) == 1


def test_graphs_without_a_single_generator_run_as_captured(stand_ins):
    gm = _graph()
    with FakeTensorMode():
        cuda, cpu = torch.empty(3, device="cuda"), torch.empty(3, device="cpu")
        meta = torch.empty(3, device="meta")
    assert backend_for(gm, [cuda, cpu]) == "eager"  # two device types, neither a scalar
    assert backend_for(gm, [meta, meta]) == "eager"  # no generator for the device
    assert backend_for(gm, [2, 3]) == "eager"  # no tensor anywhere
    assert stand_ins == {"c": [], "triton": []}


def test_a_graph_that_only_creates_tensors_is_judged_by_its_values(stand_ins):
    gm = torch.fx.symbolic_trace(lambda n: torch.ones(3) * n)
    for node in gm.graph.nodes:  # what loom's translator records on every node
        node.meta["val"] = torch.ones(3) if node.op != "placeholder" else 2
    assert backend_for(gm, [2]) == "c"


def test_a_missing_generator_warns_once_and_runs_as_captured(stand_ins, monkeypatch):
    loom_backends.unregister("c")
    monkeypatch.setattr(default, "_warned", set())
    gm = _graph()
    x, y = torch.randn(3), torch.randn(3)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for _ in range(3):
            assert torch.equal(loom_backends.get("default")(gm, [x, y])(x, y), torch.sin(x) + y)
    assert [w.category for w in caught] == [CompilerWarning]
    assert "'c'" in str(caught[0].message) and "not registered" in str(caught[0].message)
