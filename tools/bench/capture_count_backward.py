"""``loss.backward()`` in compiled code, for ``capture_count.py --only backward``: recorded in the graph
(``torch.autograd.grad`` over the leaves the loss reaches, then eager's accumulation into ``.grad``), so
a training step is one graph; what the graph cannot do exactly (a hook, ``create_graph``, history from
outside the graph) stays one graph break. Each program returns the gradients it made, so the runner
compares them with eager's.
"""

from __future__ import annotations

import torch

_W = torch.nn.Parameter(torch.tensor([0.5, -1.0, 2.0]))
_MODEL = torch.nn.Sequential(torch.nn.Linear(3, 4), torch.nn.ReLU(), torch.nn.Linear(4, 1))


def _grads(module):
    return [None if p.grad is None else p.grad.clone() for p in module.parameters()]


def c_bw_linear_model(x):
    _MODEL.zero_grad(set_to_none=True)
    loss = _MODEL(x.reshape(1, 3)).pow(2).sum()
    loss.backward()
    return loss.detach(), _grads(_MODEL)


def c_bw_accumulates_into_existing_grads(x):
    _W.grad = torch.ones(3)
    held = _W.grad
    (_W * x).sum().backward()
    (_W * x * x).sum().backward()
    return _W.grad.clone(), _W.grad is held


def c_bw_sgd_step(x):
    w = torch.nn.Parameter(torch.tensor([1.0, 2.0, 3.0]))
    opt = torch.optim.SGD([w], lr=0.1, momentum=0.9)
    for _ in range(3):
        opt.zero_grad()
        ((w - x) ** 2).sum().backward()
        opt.step()
    return w.detach()


def c_bw_gradient_argument(x):
    a = x.detach().clone().requires_grad_()
    (a * a).backward(torch.tensor([1.0, 0.5, 0.25]))
    return a.grad


def c_bw_retain_graph_twice(x):
    b = torch.ones(3, requires_grad=True)
    y = (b * x).exp().sum()
    y.backward(retain_graph=True)
    y.backward()
    return b.grad


def c_bw_autograd_backward(x):
    a = x.detach().clone().requires_grad_()
    torch.autograd.backward([(a.sin() * 2).sum()])
    return a.grad


def c_bw_leaf_itself(x):
    s = x.sum().detach().requires_grad_()
    s.backward()
    return s.grad


def c_bw_unused_leaf_keeps_none(x):
    a = x.detach().clone().requires_grad_()
    b = torch.zeros(3, requires_grad=True)
    (a * 2).sum().backward()
    return a.grad, b.grad is None


def c_bw_returns_the_loss(x):
    a = x.detach().clone().requires_grad_()
    loss = (a * 3).sum()
    loss.backward()
    return loss.detach(), a.grad, loss.requires_grad


def c_bw_second_backward_raises(x):
    a = x.detach().clone().requires_grad_()
    loss = (a * a).sum()
    loss.backward()
    try:
        loss.backward()
    except RuntimeError as exc:
        return a.grad, "second time" in str(exc)
    return a.grad, False


def c_bw_hook_on_leaf_breaks(x):
    a = x.detach().clone().requires_grad_()
    seen = []
    a.register_hook(lambda g: seen.append(g.sum().item()))
    (a * 5).sum().backward()
    return a.grad, seen


def c_bw_create_graph_breaks(x):
    a = x.detach().clone().requires_grad_()
    (a ** 3).sum().backward(create_graph=True)
    return a.grad.detach()


CONSTRUCTS = [c_bw_linear_model, c_bw_accumulates_into_existing_grads, c_bw_sgd_step, c_bw_gradient_argument,
              c_bw_retain_graph_twice, c_bw_autograd_backward, c_bw_leaf_itself, c_bw_unused_leaf_keeps_none,
              c_bw_returns_the_loss, c_bw_second_backward_raises, c_bw_hook_on_leaf_breaks, c_bw_create_graph_breaks]
