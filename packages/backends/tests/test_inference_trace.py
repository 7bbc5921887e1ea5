"""The one-trace inference path (``inference.py``): AOTAutograd's inference graph without its metadata pass.

A graph that needs no autograd and mutates no input is traced once and handed to the graph compiler as
AOTAutograd would hand it; every other graph takes AOTAutograd's full path, with the same results.
Graphs here take their parameters as inputs, as loom's graphs do.
"""

from __future__ import annotations

from collections import Counter

import pytest
import torch
import torch.nn.functional as F

import loom_backends
from loom_backends import inference
from loom_backends.graphs import with_flat_tuple_output


def block(x, w, b, gamma, beta, w2):
    h = F.linear(x, w, b)
    h = F.layer_norm(h, (h.shape[-1],), gamma, beta)
    h = F.gelu(h).transpose(1, 2).contiguous()
    return (torch.softmax(h @ w2, dim=-1).view(h.shape[0], -1), h.sum())


def _block_inputs(requires_grad=True):
    torch.manual_seed(0)
    params = [torch.randn(16, 8), torch.randn(16), torch.ones(16), torch.zeros(16), torch.randn(5, 4)]
    return [torch.randn(2, 5, 8)] + [torch.nn.Parameter(p, requires_grad=requires_grad) for p in params]


@pytest.fixture
def full_path_calls(monkeypatch):
    """How many graphs went through AOTAutograd's full path (``aot_module_simplified``)."""
    import torch._functorch.aot_autograd as aot_autograd

    calls = []
    original = aot_autograd.aot_module_simplified

    def counting(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)

    monkeypatch.setattr(aot_autograd, "aot_module_simplified", counting)
    return calls


def _aten_ops(gm):
    return Counter(str(n.target) for n in gm.graph.nodes if n.op == "call_function")


def _full_path_inference_graph(gm, inputs):
    from torch._functorch.aot_autograd import aot_module_simplified

    graphs = []
    aot_module_simplified(with_flat_tuple_output(gm)[0], inputs, fw_compiler=lambda g, _: graphs.append(g) or g,
                          keep_inference_input_mutations=True)
    return graphs[0]


def test_a_graph_under_no_grad_is_traced_once_into_aot_autograds_graph(full_path_calls):
    gm = torch.fx.symbolic_trace(block)
    inputs = _block_inputs()
    with torch.no_grad():
        compiled = loom_backends.get("aot_eager")(gm, inputs)
        got, expected = compiled(*inputs), block(*inputs)
        full = _full_path_inference_graph(gm, inputs)
    assert len(full_path_calls) == 1  # only the reference above
    torch.testing.assert_close(got, expected)
    assert [g.kind for g in compiled.graphs] == ["inference"]
    assert _aten_ops(compiled.graph("inference").graph_module) == _aten_ops(full)


def test_inputs_that_need_no_grad_take_the_one_trace_with_grad_mode_on(full_path_calls):
    gm = torch.fx.symbolic_trace(block)
    inputs = _block_inputs(requires_grad=False)
    compiled = loom_backends.get("aot_eager")(gm, inputs)
    assert not full_path_calls
    got = compiled(*inputs)
    torch.testing.assert_close(got, block(*inputs))
    assert torch.is_grad_enabled() and not got[0].requires_grad  # run with grad off, as AOTAutograd runs it


def test_a_graph_that_needs_autograd_takes_the_full_path(full_path_calls):
    gm = torch.fx.symbolic_trace(block)
    inputs = _block_inputs()
    compiled = loom_backends.get("aot_eager")(gm, inputs)
    assert len(full_path_calls) == 1
    out = compiled(*inputs)[1]
    out.backward()
    assert inputs[1].grad is not None


def mutate_second(x, y):
    y.add_(1)
    return x * 2


@pytest.mark.parametrize("aliased", [False, True], ids=["separate", "aliased"])
def test_an_input_mutation_takes_the_full_path(full_path_calls, aliased):
    gm = torch.fx.symbolic_trace(mutate_second)
    x = torch.randn(4)
    y = x if aliased else torch.randn(4)
    x_eager, y_eager = x.clone(), y.clone()
    if aliased:
        y_eager = x_eager
    compiled = loom_backends.get("aot_eager")(gm, [x, y])
    assert len(full_path_calls) == 1
    torch.testing.assert_close(compiled(x, y), mutate_second(x_eager, y_eager))
    torch.testing.assert_close(y, y_eager)


def _grad_enabled_inside() -> torch.fx.GraphModule:
    """``x @ w`` between ``_set_grad_enabled(True)`` and ``(False)``, as loom records a ``with torch.enable_grad()``."""
    graph = torch.fx.Graph()
    x, w = graph.placeholder("x"), graph.placeholder("w")
    graph.call_function(torch._C._set_grad_enabled, (True,))
    out = graph.call_function(torch.matmul, (x, w))
    graph.call_function(torch._C._set_grad_enabled, (False,))
    graph.output((out,))
    return torch.fx.GraphModule(torch.nn.Module(), graph)


def test_turning_grad_on_inside_with_inputs_that_require_grad_takes_the_full_path(full_path_calls):
    gm = _grad_enabled_inside()
    x, w = torch.randn(2, 3), torch.randn(3, 3, requires_grad=True)
    with torch.no_grad():
        compiled = loom_backends.get("aot_eager")(gm, [x, w])
        (out,) = compiled(x, w)
    assert len(full_path_calls) == 1
    assert out.requires_grad  # as in eager: the product was taken with grad on


def draw(x):
    return x + torch.randn(x.shape)


def test_compiling_draws_nothing_and_the_graph_draws_like_eager(full_path_calls):
    gm = torch.fx.symbolic_trace(draw)
    x = torch.zeros(5)
    state = torch.get_rng_state()
    compiled = loom_backends.get("aot_eager")(gm, [x])
    assert not full_path_calls
    assert torch.equal(torch.get_rng_state(), state)
    torch.manual_seed(3)
    got = compiled(x)
    torch.manual_seed(3)
    torch.testing.assert_close(got, draw(x))


def test_under_inference_mode(full_path_calls):
    gm = torch.fx.symbolic_trace(block)
    with torch.inference_mode():
        inputs = _block_inputs()
        compiled = loom_backends.get("aot_eager")(gm, inputs)
        torch.testing.assert_close(compiled(*inputs), block(*inputs))
    assert not full_path_calls


def test_what_cannot_be_told_before_tracing_is_declined_up_front():
    from torch._subclasses.fake_tensor import FakeTensorMode

    def scale(x, k):
        return (x * k,)

    gm = torch.fx.symbolic_trace(scale)
    assert inference.trace_inference(gm, [torch.randn(3), 2]) is None  # a number input
    fake = FakeTensorMode().from_tensor(torch.randn(3))
    assert inference.trace_inference(gm, [fake, torch.randn(3)]) is None  # fakes: dynamic shapes
    module_gm = torch.fx.symbolic_trace(torch.nn.Linear(3, 3))
    assert inference.trace_inference(module_gm, [torch.randn(2, 3)]) is None  # parameters held by the module
    with torch.autocast("cpu"):
        assert inference.trace_inference(gm, [torch.randn(3), torch.randn(3)]) is None


def test_the_placeholders_fakes_are_reused_when_they_describe_the_inputs():
    from torch._subclasses.fake_tensor import FakeTensorMode

    gm = with_flat_tuple_output(torch.fx.symbolic_trace(block))[0]
    inputs = _block_inputs(requires_grad=False)
    mode = FakeTensorMode()
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    for node, value in zip(placeholders, inputs):
        node.meta["val"] = mode.from_tensor(value, static_shapes=True)
    traced = inference.trace_inference(gm, inputs)
    assert traced.example_inputs == [n.meta["val"] for n in placeholders]
    placeholders[0].meta["val"] = mode.from_tensor(inputs[0].transpose(1, 2).contiguous().transpose(1, 2))
    traced = inference.trace_inference(gm, inputs)  # one fake's strides differ from its input's: fresh fakes
    assert all(fake.fake_mode is not mode for fake in traced.example_inputs)


def test_the_c_backend_compiles_the_one_trace(full_path_calls):
    gm = torch.fx.symbolic_trace(block)
    inputs = _block_inputs()
    with torch.no_grad():
        compiled = loom_backends.get("c")(gm, inputs)
        torch.testing.assert_close(compiled(*inputs), block(*inputs))
    assert not full_path_calls
    assert [g.kind for g in compiled.graphs] == ["inference"]


def test_views_returned_by_an_inference_graph_behave_as_views_made_with_grad():
    """The graph runs under ``no_grad``; a view it returns is made again with grad mode on, so autograd takes
    it after its base became a leaf and was written in place, as eager's view (a no_grad view raises)."""
    import torch

    from loom_backends.inference import run_without_grad

    def graph(x):
        c = x.clone()
        return [c, c[:2]]

    c, v = run_without_grad(graph)(torch.arange(3.0))
    assert v._base is c
    c.requires_grad_()
    with torch.no_grad():
        c.mul_(10)
    out = v * 1  # raises "A view was created in no grad mode ..." for a view made under no_grad
    assert out.requires_grad and torch.equal(out.detach(), torch.tensor([0.0, 10.0]))
