"""``register_hook`` and ``retain_grad()`` on tensors the frame makes (intermediates, outputs), for
``capture_count.py --only hooks8``: the call is made after the graph on the real tensor, so the forward part
captures in one graph (a ``backward()`` in the frame still breaks, after the registration). Hooks as lambdas,
closures over lists the frame made, ``functools.partial`` and helper functions; handles removed, kept and
returned; several hooks and ``retain_grad`` on one tensor; hooks on two outputs with only one backpropagated;
an output of a many-output op (``std_mean``), whose eager node hands the other outputs' hooks None; a view
(breaks: its base may change in place); an op using the tensor after the registration (a break there); eager's
errors on tensors without grad.
"""

from __future__ import annotations

import functools

import torch


def _leaf():
    """A fresh leaf that requires grad, made for each run (``extra_args``)."""
    return (torch.tensor([1.0, 2.0, 3.0], requires_grad=True),)


def _add_k(grad, *, k=0):
    return grad + k


def _with_hook(t, k):
    t.register_hook(functools.partial(_add_k, k=k))
    return t


def c_h8_hook_on_returned_output(x, leaf):
    y = leaf * x
    y.register_hook(lambda g: g * 3)
    return y, len(y._backward_hooks), y.retains_grad


def c_h8_hook_then_backward(x, leaf):
    y = leaf.exp()
    y.register_hook(lambda g: g * 0.5)
    y.backward(torch.ones(3))
    return leaf.grad * x


def c_h8_handle_removed_then_backward(x, leaf):
    y = leaf * 2
    handle = y.register_hook(lambda g: g * 100)
    y.register_hook(lambda g: g + 1)
    handle.remove()
    y.backward(torch.ones(3))
    return leaf.grad + x


def c_h8_handle_in_with_block(x, leaf):
    y = leaf * 2
    with y.register_hook(lambda g: g * 100):
        z = x + 1
    return y, z, y._backward_hooks is None


def c_h8_handle_returned(x, leaf):
    y = leaf * 2
    handle = y.register_hook(lambda g: g * 100)
    return y, type(handle).__name__, handle.id in y._backward_hooks


def c_h8_retain_grad_flag_and_grad(x, leaf):
    y = leaf * x
    y.retain_grad()
    return y, y.retains_grad, y.grad is None


def c_h8_retain_grad_then_backward(x, leaf):
    y = leaf * x
    y.retain_grad()
    y.register_hook(lambda g: g * 2)
    y.backward(torch.ones(3))
    return y.grad + 1, leaf.grad


def c_h8_hook_from_helper(x, leaf):
    y = _with_hook(leaf * 2, 3)
    y = _with_hook(y, 4)
    y.backward(torch.ones(3))
    return leaf.grad * x


def c_h8_hook_records_into_list(x, leaf):
    seen = []
    y = leaf.sin()
    y.register_hook(lambda g: seen.append(g.sum()))
    y.backward(x)
    return leaf.grad + 1, seen[0] * 1


def c_h8_hooks_on_two_outputs_one_backpropagated(x, leaf):
    seen = []
    a = leaf * 2
    b = leaf * 3
    a.register_hook(lambda g: g * 10)
    b.register_hook(lambda g: seen.append(g))
    a.backward(torch.ones(3))
    return leaf.grad + x, len(seen)


def c_h8_hook_on_output_of_std_mean(x, leaf):
    seen = []
    std, mean = torch.std_mean(leaf * 2)
    mean.register_hook(lambda g: seen.append(g is None))
    std.backward()
    return leaf.grad + x, seen


def c_h8_hook_on_view_breaks(x, leaf):
    base = leaf * 2
    view = base[:2]
    view.register_hook(lambda g: g * 10)
    base.mul_(3)
    (view.sum() + base.sum()).backward()
    return leaf.grad + x


def c_h8_hook_then_use(x, leaf):
    y = leaf * 2
    y.register_hook(lambda g: g * 10)
    z = y * x
    z.backward(torch.ones(3))
    return leaf.grad * 1


def c_h8_retain_grad_without_grad_raises(x, leaf):
    y = x * 2
    try:
        y.retain_grad()
    except RuntimeError as e:
        return y + 1, str(e)
    return y, ""


def c_h8_hook_without_grad_raises(x, leaf):
    y = x * 2
    try:
        y.register_hook(lambda g: g)
    except RuntimeError as e:
        return y + 1, str(e)
    return y, ""


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

for _fn in CONSTRUCTS:  # a fresh leaf for every program
    _fn.extra_args = _leaf
