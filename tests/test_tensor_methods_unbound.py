"""Tensor methods read off the class and called with the tensor (``torch.Tensor.backward(loss)``, what
``Tensor.__torch_function__`` runs for a subclass's ``loss.backward()``).

``Tensor.backward`` is Python in ``torch._tensor``, a module whose functions are graph ops: the call became a
node with no result, dropped as dead code, so no gradient was ever computed (a wrong answer; ``loss.backward()``
breaks the graph). A tensor method that acts outside the graph now does the same read off the class.
"""

from __future__ import annotations

import torch

import loom


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def unbound_backward(x):
    leaf = x.clone().requires_grad_()
    torch.Tensor.backward((leaf.sin() * 2).sum())
    return leaf.grad


def unbound_hook(x):
    seen = []
    leaf = x.clone().requires_grad_()
    torch.Tensor.register_hook(leaf, lambda g: seen.append(g.sum().item()))
    (leaf * 3).sum().backward()
    return leaf.grad, seen


def test_unbound_backward_runs_autograd():
    x = torch.arange(3.0)
    report = explained(unbound_backward, x)
    assert torch.equal(report.result, unbound_backward(x))
    assert any("Tensor.backward()" in str(b) for b in report.breaks), report.format()


def test_unbound_register_hook_registers():
    x = torch.arange(3.0)
    grad, seen = explained(unbound_hook, x).result
    expected_grad, expected_seen = unbound_hook(x)
    assert torch.equal(grad, expected_grad) and seen == expected_seen
