"""``t.requires_grad_()`` on a tensor made in the graph when sizes are symbolic (``dynamic=True``, round
exc15): the tensor is made a leaf without a graph break, its symbolic sizes specialised (a guard, so another
size compiles again); values, leaf-ness and gradients are eager's for every size."""

from __future__ import annotations

import pytest
import torch

import loom


def _clone_leaf(x):
    t = x.clone().requires_grad_(True)
    return t, (t * t).sum()


def _detached_leaf(x):
    w = (x * 2).detach().requires_grad_()
    return w, w.sin()


def _leaf_after_raise(x):
    t = x.clone().requires_grad_(True)
    try:
        with torch.no_grad():
            y = t * 2
            raise NotImplementedError
    except NotImplementedError:
        z = t * 3
    return t, y.requires_grad, z.requires_grad, torch.is_grad_enabled(), z


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [_clone_leaf, _detached_leaf, _leaf_after_raise])
def test_a_leaf_made_in_a_dynamic_graph_does_not_break_and_matches_eager(fn, backend):
    loom.reset()
    compiled = loom.compile(fn, backend=backend, dynamic=True)
    for n in (3, 5, 3):
        x = torch.arange(float(n))
        got, want = compiled(x), fn(x)
        leaf, ref = got[0], want[0]
        assert leaf.is_leaf and leaf.requires_grad and torch.equal(leaf.detach(), ref.detach())
        for g, w in zip(got[1:], want[1:]):
            if isinstance(w, torch.Tensor):
                assert torch.allclose(g, w)
            else:
                assert g == w
        got[-1].sum().backward()
        want[-1].sum().backward()
        assert torch.allclose(leaf.grad, ref.grad)
    stats = loom.stats()
    assert stats["graph_breaks"] == 0
    assert stats["graphs"] == 2  # sizes 3 and 5; the second 3 reuses the first compile
