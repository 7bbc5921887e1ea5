"""``eager`` and ``aot_eager`` on real models: forward and backward match plain PyTorch."""

from __future__ import annotations

import copy

import pytest
import torch

import loom_backends
from loom_backends import CompiledFunction


def _grads(module):
    return [p.grad.clone() for p in module.parameters()]


def _check_train_step(backend, module, x):
    reference = copy.deepcopy(module)
    gm = torch.fx.symbolic_trace(module)
    x1 = x.clone().requires_grad_(True)
    x2 = x.clone().requires_grad_(True)
    compiled = loom_backends.get(backend)(gm, [x1])
    out = compiled(x1)
    expected = reference(x2)
    torch.testing.assert_close(out, expected)
    grad = torch.randn_like(expected)
    out.backward(grad)
    expected.backward(grad)
    torch.testing.assert_close(x1.grad, x2.grad)
    for got, want in zip(_grads(gm), _grads(reference)):
        torch.testing.assert_close(got, want)
    return compiled


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("model", ["MLP", "Block"])
def test_models_match_eager_forward_and_backward(backend, model, models):
    torch.manual_seed(0)
    module = getattr(models, model)()
    x = torch.randn(2, 8, 12) if model == "MLP" else torch.randn(2, 5, 16)
    compiled = _check_train_step(backend, module, x)
    if backend == "aot_eager":
        assert isinstance(compiled, CompiledFunction)
        kinds = [g.kind for g in compiled.graphs]
        assert kinds == ["forward", "backward"]
        targets = {str(n.target) for n in compiled.graph("backward").graph_module.graph.nodes}
        assert any(t.startswith("aten.") for t in targets)  # the backward really is an ATen graph


def test_aot_eager_inference_graph_when_nothing_needs_grad(models):
    module = models.MLP()
    for p in module.parameters():
        p.requires_grad_(False)
    gm = torch.fx.symbolic_trace(module)
    x = torch.randn(3, 12)
    compiled = loom_backends.get("aot_eager")(gm, [x])
    torch.testing.assert_close(compiled(x), module(x))
    assert [g.kind for g in compiled.graphs] == ["inference"]
    with pytest.raises(LookupError, match="inference"):
        compiled.graph("backward")


def test_outputs_keep_their_structure():
    def f(x, y):
        return {"sum": x + y, "pair": [x * y, (x - y,)]}

    gm = torch.fx.symbolic_trace(f)
    x, y = torch.randn(3), torch.randn(3)
    for backend in ("eager", "aot_eager"):
        out = loom_backends.get(backend)(gm, [x, y])(x, y)
        assert set(out) == {"sum", "pair"}
        torch.testing.assert_close(out["sum"], x + y)
        torch.testing.assert_close(out["pair"][1][0], x - y)


def test_eager_returns_the_graph_itself():
    gm = torch.fx.symbolic_trace(lambda x: (x.sin(),))
    fn = loom_backends.get("eager")(gm, [torch.ones(2)])
    assert fn.__self__ is gm


def test_aot_eager_backward_draws_no_random_numbers():
    """A backward uses the forward's saved dropout mask: it leaves the generator where eager leaves it.

    The default partitioner kept a dead ``native_dropout`` in the backward graph, which drew from the
    generator there, so every later dropout mask (the next training step's) differed from eager's.
    """

    class Attention(torch.nn.Module):
        def forward(self, q):
            return torch.nn.functional.scaled_dot_product_attention(q, q, q, dropout_p=0.5).sum()

    q = torch.randn(1, 2, 4, 8)
    states = []
    for make in (lambda gm, q: gm, lambda gm, q: loom_backends.get("aot_eager")(gm, [q])):
        x = q.clone().requires_grad_(True)
        fn = make(torch.fx.symbolic_trace(Attention()), x)
        torch.manual_seed(1)
        fn(x).backward()
        states.append((x.grad, torch.rand(4)))
    torch.testing.assert_close(states[1], states[0])
