"""Size symbols of aliased graph inputs lifted to SymInt inputs (``loom_backends.aot_symbols``): only for
inputs that share a storage and have a symbolic size; AOTAutograd's synthetic base then traces, and the
compiled function, called with the graph's own arguments, writes through the views as eager does."""

from __future__ import annotations

import pytest
import torch
from torch._subclasses.fake_tensor import FakeTensorMode
from torch.fx.experimental.symbolic_shapes import DimDynamic, ShapeEnv, StatelessSymbolicContext

import loom_backends
from loom_backends.aot_symbols import lift_aliased_view_symbols


def _scale_first(a, b):
    a.mul_(10)
    return (b * 2,)


def _fake(mode, t, dynamic):
    context = StatelessSymbolicContext(dynamic_sizes=[DimDynamic.DYNAMIC if dynamic else DimDynamic.STATIC] * t.dim(),
                                       constraint_sizes=[None] * t.dim())
    return mode.from_tensor(t, symbolic_context=context)


def _graph_and_fakes(a, b, dynamic_b=True):
    mode = FakeTensorMode(shape_env=ShapeEnv())
    return torch.fx.symbolic_trace(_scale_first), [_fake(mode, a, False), _fake(mode, b, dynamic_b)]


def test_lifts_the_symbolic_size_of_an_aliased_input():
    y = torch.arange(7.0)
    gm, fakes = _graph_and_fakes(y[:3], y[1:])
    lifted = lift_aliased_view_symbols(gm, fakes)
    assert lifted is not None and lifted.sites == [(1, "size", 0)]
    assert lifted.example_inputs[:2] == fakes and isinstance(lifted.example_inputs[2], torch.SymInt)
    placeholders = [n for n in lifted.graph_module.graph.nodes if n.op == "placeholder"]
    assert len(placeholders) == 3 and len([n for n in gm.graph.nodes if n.op == "placeholder"]) == 2


@pytest.mark.parametrize("make", [
    lambda: (torch.arange(3.0), torch.arange(6.0)[1:], True),  # symbolic, but no storage shared
    lambda: (*(lambda y: (y[:3], y[1:]))(torch.arange(7.0)), False),  # shared, but static sizes
])
def test_other_graphs_are_handed_on_unchanged(make):
    a, b, dynamic_b = make()
    gm, fakes = _graph_and_fakes(a, b, dynamic_b)
    assert lift_aliased_view_symbols(gm, fakes) is None


@pytest.mark.parametrize("backend", ["aot_eager", "c"])
def test_aliased_dynamic_views_compile_and_write_through(backend):
    y = torch.arange(7.0)
    gm, fakes = _graph_and_fakes(y[:3], y[1:])
    compiled = loom_backends.get(backend)(gm, fakes)
    for n in (7, 8):  # sizes the graph's guards (b's bounds within its static base) admit
        got, want = torch.arange(float(n)), torch.arange(float(n))
        torch.testing.assert_close(compiled(got[:3], got[1:]), _scale_first(want[:3], want[1:]))
        torch.testing.assert_close(got, want)
