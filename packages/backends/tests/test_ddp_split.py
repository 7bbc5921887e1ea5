"""``loom_backends.ddp_split``: graphs split at DDP's bucket boundaries compute what the whole graph does."""

from __future__ import annotations

import torch
from torch import nn

from loom_backends import ddp_split, get


def _traced(model: nn.Sequential, x: torch.Tensor):
    """The graph loom's translator makes of ``model`` (Linear/Tanh layers): parameters are placeholders,
    every node carries its FakeTensor as ``meta["val"]``; and its inputs (``x``, then the parameters)."""
    from torch._subclasses import FakeTensorMode
    from torch.fx.passes.fake_tensor_prop import FakeTensorProp

    graph = torch.fx.Graph()
    value = graph.placeholder("x")
    inputs: list[torch.Tensor] = [x]
    for index, layer in enumerate(model):
        if isinstance(layer, nn.Linear):
            weight, bias = graph.placeholder(f"w{index}"), graph.placeholder(f"b{index}")
            inputs += [layer.weight, layer.bias]
            value = graph.call_function(torch.nn.functional.linear, (value, weight, bias))
        else:
            value = graph.call_function(torch.tanh, (value,))
    graph.output((value,))
    gm = torch.fx.GraphModule(nn.Module(), graph)
    mode = FakeTensorMode()
    FakeTensorProp(gm, mode).propagate(*[mode.from_tensor(t) for t in inputs])
    return gm, inputs


def _model():
    torch.manual_seed(0)
    return nn.Sequential(nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 8), nn.Tanh(), nn.Linear(8, 1))


def test_buckets_are_filled_from_the_output_back():
    model = _model()
    gm, inputs = _traced(model, torch.randn(4, 8))
    sizes = {n.name: ddp_split._nbytes(v) for n, v in zip([n for n in gm.graph.nodes if n.op == "placeholder"], inputs)
             if isinstance(v, nn.Parameter)}
    assignment, buckets = ddp_split.plan_buckets(gm, sizes, [300])
    # 8x8 linears: 288 bytes each; the last linear is 36 bytes, so it shares a bucket with the middle one.
    assert [b.nbytes for b in buckets] == [288, 324]
    assert set(buckets[0].params) == {"w0", "b0"}
    assert set(buckets[1].params) == {"w2", "b2", "w4", "b4"}
    order = [assignment[n] for n in gm.graph.nodes if n in assignment]
    assert order == sorted(order)  # pieces run in graph order


def test_split_graph_gives_the_whole_graphs_values_and_gradients():
    model = _model()
    x = torch.randn(4, 8)
    gm, inputs = _traced(model, x)
    managed = {id(p) for p in model.parameters()}
    split = ddp_split.split_and_compile(gm, inputs, get("aot_eager"), backend_name="aot_eager",
                                        managed=managed, limits=[300])
    assert split.outer is not None and len(split.buckets) == 2, split.reason
    assert "split into 2 graphs" in split.explain_lines()[0]
    (out,) = split(*inputs)
    out.sum().backward()
    grads = [p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    want = model(x)
    want.sum().backward()
    assert torch.allclose(out, want)
    for got, expected in zip(grads, (p.grad for p in model.parameters())):
        assert torch.allclose(got, expected)


def test_graphs_that_fit_one_bucket_are_compiled_whole():
    model = _model()
    gm, inputs = _traced(model, torch.randn(4, 8))
    split = ddp_split.split_and_compile(gm, inputs, get("aot_eager"), backend_name="aot_eager",
                                        managed={id(p) for p in model.parameters()}, limits=[25 * 2**20])
    assert split.outer is None and "fit one bucket" in split.reason
    assert split.explain_lines() == [f"DDP: compiled whole ({split.reason})"]
    (out,) = split(*inputs)
    assert torch.allclose(out, model(inputs[0]))


def test_parameters_ddp_does_not_manage_are_not_counted():
    model = _model()
    gm, inputs = _traced(model, torch.randn(4, 8))
    split = ddp_split.split_and_compile(gm, inputs, get("aot_eager"), backend_name="aot_eager",
                                        managed=set(), limits=[300])
    assert split.outer is None and "no parameter DDP all-reduces" in split.reason
