"""A ``torch._higher_order_ops.BaseHOP`` subclass called in the frame (``op(subgraph, *operands, scheme=...)``, the
``invoke_quant`` pattern): one node of that operator around the subgraph's sub-graph, as torch.compile records it,
instead of tracing ``BaseHOP.__call__`` (which broke the graph: a GraphModule used as a constant)."""

import torch
from torch._higher_order_ops import BaseHOP

import loom


class _Quant(BaseHOP):
    def __init__(self):
        super().__init__("loom_test_quant_hop")

    def __call__(self, subgraph, *operands, scheme):
        return super().__call__(subgraph, *operands, scheme=scheme)


_quant = _Quant()


def _mm_sin(a, b):
    return ((a @ b).sin(),)


def _pair(a, b):
    return a + b, a - b


_MM_SIN = torch.fx.symbolic_trace(_mm_sin)
_PAIR = torch.fx.symbolic_trace(_pair)


def _one(a, b):
    return _quant(_MM_SIN, a, b, scheme="nf4")[0] + 1


def _two(a, b):
    first, second = _quant(_PAIR, a, b, scheme="int8")
    return first * second


def _graphs(fn, *args):
    graphs = []

    def backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    loom.reset()
    result = loom.compile(fn, backend=backend)(*args)
    return result, graphs


def _hop_nodes(gm):
    return [n for n in gm.graph.nodes if n.op == "call_function" and n.target is _quant]


def test_one_node_of_the_operator_with_its_options():
    a, b = torch.randn(3, 3), torch.randn(3, 3)
    result, graphs = _graphs(_one, a, b)
    assert torch.allclose(result, _one(a, b))
    assert len(graphs) == 1
    (node,) = _hop_nodes(graphs[0])
    assert node.kwargs == {"scheme": "nf4"}
    report = loom.explain(_one)(a, b)
    assert report.graph_count == 1 and not report.breaks


def test_several_outputs_and_a_plain_function_subgraph():
    a, b = torch.randn(3), torch.randn(3)
    result, graphs = _graphs(_two, a, b)
    assert torch.allclose(result, _two(a, b)) and len(graphs) == 1 and len(_hop_nodes(graphs[0])) == 1

    def plain_body(x):  # eager refuses a plain function; torch.compile (and loom) take it
        return _quant(lambda p, q: (p * q,), x, x, scheme="nf4")[0]

    result, graphs = _graphs(plain_body, a)
    assert torch.allclose(result, a * a) and len(graphs) == 1


def test_gradients_flow_through_the_node():
    a = torch.randn(3, 3, requires_grad=True)
    b = torch.randn(3, 3, requires_grad=True)
    loom.reset()
    out = loom.compile(_one, backend="aot_eager")(a, b)
    grads = torch.autograd.grad(out.sum(), (a, b))
    ref = torch.autograd.grad(((a @ b).sin() + 1).sum(), (a, b))
    assert all(torch.allclose(g, r) for g, r in zip(grads, ref))


def test_a_body_changing_python_state_is_one_break():
    log = []

    def body(p):
        log.append(1)
        return (p + 1,)

    def fn(x):
        return _quant(body, x, scheme="nf4")

    report = loom.explain(fn)
    try:
        report(torch.ones(2))
    except RuntimeError as exc:  # eager's BaseHOP refuses the plain function, as the call then runs
        assert "GraphModule" in str(exc)
    else:
        raise AssertionError("eager's call should have raised")
