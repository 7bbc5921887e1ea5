"""A checkpointed region that draws random numbers in place (dropout's ``bernoulli_``): its backward recomputes
with the forward's draws, as eager's checkpoint does, on every backend (the eager backend raised: the saved
mask was divided in place, and the selective-checkpoint cache refused the mutated entry)."""

from __future__ import annotations

import pytest
import torch
import torch.utils.checkpoint

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager") if name in loom_backends.names()]


def _dropout_region(x):
    def gn(a):
        return torch.nn.functional.dropout(a.sin(), p=0.5, training=True)

    leaf = x.clone().requires_grad_()
    out = torch.utils.checkpoint.checkpoint(gn, leaf, use_reentrant=False)
    return out, leaf


def _two_dropouts_region(x):
    drop = torch.nn.Dropout(0.3)

    def gn(a):
        return drop(a.exp()) * torch.nn.functional.dropout(a, p=0.6, training=True)

    leaf = x.clone().requires_grad_()
    out = torch.utils.checkpoint.checkpoint(gn, leaf, use_reentrant=False)
    return out, leaf


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("region", [_dropout_region, _two_dropouts_region])
def test_backward_through_an_in_place_random_region_sees_the_forwards_draws(region, backend):
    x = torch.linspace(-1.0, 1.0, 16)

    def run(fn):
        torch.manual_seed(7)
        out, leaf = fn(x)
        out.sum().backward()
        return out.detach(), leaf.grad, torch.rand(4)  # the draws after the backward go on as eager's

    want = run(region)
    got = run(loom.compile(region, backend=backend, options={"strict": True}))
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w)
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0
