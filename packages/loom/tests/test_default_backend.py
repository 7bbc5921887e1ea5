"""``loom.compile``'s default backend generates code for the graph's device; ``eager`` is one keyword away."""

from __future__ import annotations

import pytest
import torch

import loom
import loom_backends


def scaled_sin(x):
    return torch.sin(x) * 2


@pytest.fixture
def c_stand_in():
    """A stand-in registered as ``c`` (the CPU generator) recording the graphs it compiles."""
    seen: list[list] = []
    saved = loom_backends.get("c") if "c" in loom_backends.names() else None

    @loom_backends.register("c", replace=True)
    def stand_in(gm, example_inputs):
        seen.append([t.device.type for t in example_inputs if isinstance(t, torch.Tensor)])
        return gm.forward

    yield seen
    loom_backends.unregister("c")
    if saved is not None:
        loom_backends.register("c")(saved)


def test_the_default_compiles_cpu_graphs_with_the_c_generator(c_stand_in):
    compiled = loom.compile(scaled_sin)
    x = torch.randn(8)
    assert torch.equal(compiled(x), torch.sin(x) * 2)
    assert c_stand_in == [["cpu"]]
    assert compiled._loom_compiler.settings.backend_name == "default"

    @loom.compile  # the decorator form has the same default
    def cos_plus_one(t):
        return t.cos() + 1

    assert torch.equal(cos_plus_one(x), x.cos() + 1)
    assert len(c_stand_in) == 2


def test_eager_is_one_keyword_away(c_stand_in):
    x = torch.randn(8)
    assert torch.equal(loom.compile(scaled_sin, backend="eager")(x), torch.sin(x) * 2)
    assert c_stand_in == []
    assert loom.stats()["graphs"] == 1
