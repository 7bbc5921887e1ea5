"""Tensor hooks, modelled on PyTorch's test/dynamo/test_hooks.py, for ``capture_count.py --only dynamo_tests_hooks``:
``register_hook`` on inputs, intermediates and outputs inside the compiled frame (lambdas, local and global
functions, closures over locals and nonlocals, ``functools.partial`` and bound methods), hooks that scale, replace
or keep the gradient, hooks that record into outer lists, dicts and objects, several hooks in order, removing a
hook through its handle (once, twice, as a context manager), ``retain_grad``, post-accumulate-grad hooks, hooks on
parameters, and ``backward()`` or ``torch.autograd.grad`` run inside the frame with ``.grad`` read afterwards.
The hooks' effect is part of the result: either the frame runs autograd itself, or it returns what the hook
recorded. Module hooks and saved-tensor hooks live in ``capture_count_dynamo_tests_hooks_more.py``.
"""

from __future__ import annotations

import functools

import torch
from torch import nn


def _leaf():
    """A fresh leaf that requires grad, made for each run (``extra_args``)."""
    return (torch.tensor([1.0, 2.0, 3.0], requires_grad=True),)


def _global_times_four(grad):
    return grad * 4


def _global_half(grad):
    return grad / 2


def _global_times_three(grad):
    return grad * 3


_SCALE = 5.0


class _Recorder:
    """Holds what a hook saw and scales gradients by ``factor``."""

    def __init__(self, factor=1.0):
        self.factor = factor
        self.seen = []
        self.calls = 0

    def scale(self, grad):
        self.calls += 1
        self.seen.append(grad.clone())
        return grad * self.factor


def _add_k(grad, *, k=0):
    return grad + k


# -- hooks on an input, autograd run in the frame ---------------------------------------------------------
def c_dk_input_lambda_doubles_grad(x, leaf):
    leaf.register_hook(lambda grad: grad * 2)
    (leaf * x).sum().backward()
    return leaf.grad + 1


def c_dk_input_local_function_hook(x, leaf):
    def local_hook(grad):
        return grad * 3

    y = leaf * (x + 1)
    leaf.register_hook(local_hook)
    y.sum().backward()
    return leaf.grad * 2


def c_dk_input_global_function_hook(x, leaf):
    leaf.register_hook(_global_times_four)
    (leaf.sin() * x).sum().backward()
    return leaf.grad - 1


def c_dk_input_multiple_hooks_in_order(x, leaf):
    leaf.register_hook(_global_times_four)
    leaf.register_hook(_global_half)
    leaf.register_hook(_global_times_three)
    (leaf * leaf).sum().backward()
    return leaf.grad + x


def c_dk_input_hook_closure_over_local(x, leaf):
    factor = x.sum() + 1
    leaf.register_hook(lambda grad: grad * factor)
    (leaf * 2).sum().backward()
    return leaf.grad.cos()


def c_dk_input_hook_closure_over_global(x, leaf):
    leaf.register_hook(lambda grad: grad * _SCALE)
    (leaf + x).sum().backward()
    return leaf.grad / 2


def c_dk_input_hook_nonlocal_counter(x, leaf):
    calls = 0

    def counting(grad):
        nonlocal calls
        calls += 1
        return grad + calls

    leaf.register_hook(counting)
    (leaf * x).sum().backward(retain_graph=True)
    (leaf * x).sum().backward()
    return leaf.grad * 1, calls


def c_dk_input_hook_records_in_list(x, leaf):
    seen = []
    leaf.register_hook(lambda grad: seen.append(grad.clone()))
    (leaf * (x + 2)).sum().backward()
    return leaf.grad + 1, len(seen), seen[0] * 2


def c_dk_input_hook_records_in_dict(x, leaf):
    grads = {}

    def keep(grad):
        grads["leaf"] = grad * 1
        return None

    leaf.register_hook(keep)
    (leaf.exp()).sum().backward()
    return grads["leaf"] - leaf.grad, sorted(grads)


def c_dk_input_hook_records_on_object(x, leaf):
    rec = _Recorder(factor=2.0)
    leaf.register_hook(rec.scale)
    (leaf * x).sum().backward()
    return leaf.grad + 1, rec.calls, rec.seen[0]


def c_dk_input_hook_partial_with_kwarg(x, leaf):
    leaf.register_hook(functools.partial(_add_k, k=3))
    leaf.register_hook(functools.partial(_add_k, k=4))
    (leaf * 2).sum().backward()
    return leaf.grad * x


def c_dk_input_hook_returns_none_keeps_grad(x, leaf):
    leaf.register_hook(lambda grad: None)
    (leaf * x).sum().backward()
    return leaf.grad + 1


def c_dk_input_hook_replaces_grad(x, leaf):
    leaf.register_hook(lambda grad: torch.ones_like(grad) * 7)
    (leaf.tanh()).sum().backward()
    return leaf.grad + x


def c_dk_handle_removed_before_backward(x, leaf):
    handle = leaf.register_hook(lambda grad: grad * 2)
    y = (leaf * x).sum()
    handle.remove()
    y.backward()
    return leaf.grad + 1


def c_dk_handle_removed_twice(x, leaf):
    handle = leaf.register_hook(lambda grad: grad * 2)
    y = leaf * x
    handle.remove()
    handle.remove()
    y.sum().backward()
    return leaf.grad - 1


def c_dk_handle_removed_then_new_hook(x, leaf):
    handle = leaf.register_hook(lambda grad: grad * 2)
    z = x * x
    handle.remove()
    leaf.register_hook(lambda grad: grad * 3)
    (leaf * z).sum().backward()
    return leaf.grad + 1


def c_dk_handle_as_context_manager(x, leaf):
    with leaf.register_hook(lambda grad: grad * 10):
        (leaf * x).sum().backward()
    first = leaf.grad.clone()
    (leaf * x).sum().backward()
    return first, leaf.grad + 0


def c_dk_handles_in_list_removed_later(x, leaf):
    handles = [leaf.register_hook(_global_times_four), leaf.register_hook(_global_half)]
    (leaf * x).sum().backward()
    first = leaf.grad.clone()
    for h in handles:
        h.remove()
    (leaf * x).sum().backward()
    return first, leaf.grad * 1


def c_dk_hook_in_branch(x, leaf):
    if x.sum() > 1:
        leaf.register_hook(lambda grad: grad * 2)
    else:
        leaf.register_hook(lambda grad: grad * 5)
    (leaf * 3).sum().backward()
    return leaf.grad + x


def c_dk_hooks_registered_in_loop(x, leaf):
    for k in range(3):
        leaf.register_hook(functools.partial(_add_k, k=k))
    (leaf * x).sum().backward()
    return leaf.grad * 2


def c_dk_hook_raises_during_backward(x, leaf):
    def bad(grad):
        raise ValueError("hook refused the gradient")

    leaf.register_hook(bad)
    y = (leaf * x).sum()
    try:
        y.backward()
    except ValueError as e:
        return x + 1, str(e)
    return x, "no error"


def c_dk_hook_wrong_shape_raises(x, leaf):
    leaf.register_hook(lambda grad: grad.sum())
    try:
        (leaf * x).sum().backward()
    except RuntimeError:
        return x * 2, "shape refused"
    return x, "accepted"


def c_dk_hook_on_tensor_without_grad_raises(x):
    y = x * 2
    try:
        y.register_hook(lambda grad: grad)
    except RuntimeError as e:
        return y + 1, "doesn't require gradient" in str(e)
    return y, False


def c_dk_grad_before_backward_is_none(x, leaf):
    leaf.register_hook(lambda grad: grad * 2)
    before = leaf.grad is None
    (leaf * x).sum().backward()
    return leaf.grad + 1, before


def c_dk_grad_reset_between_backwards(x, leaf):
    leaf.register_hook(lambda grad: grad + 1)
    (leaf * x).sum().backward()
    leaf.grad = None
    (leaf * 2).sum().backward()
    return leaf.grad * x


def c_dk_autograd_grad_sees_hook(x, leaf):
    leaf.register_hook(lambda grad: grad * 4)
    out = (leaf * leaf).sum()
    (g,) = torch.autograd.grad(out, leaf)
    return g + x, leaf.grad is None


# -- hooks on intermediates and outputs --------------------------------------------------------------------
def c_dk_intermediate_hook_adds_one(x, leaf):
    y = leaf * 2
    y.register_hook(lambda grad: grad + 1)
    y.sum().backward()
    return leaf.grad + x


def c_dk_intermediate_used_before_and_after(x, leaf):
    y = leaf * 2
    z = y + 1
    y.register_hook(lambda g: g * 2)
    w = y * 3
    (z + w).sum().backward()
    return leaf.grad * 1


def c_dk_intermediate_hook_returns_none(x, leaf):
    y = leaf * 2
    y.register_hook(lambda g: None)
    y.sum().backward()
    return leaf.grad + x


def c_dk_intermediate_in_list_and_dict(x, leaf):
    kept, named = [], {}
    y = leaf * 2
    kept.append(y)
    named["t"] = y
    a = kept[0] * 3
    b = named["t"]
    y.register_hook(lambda grad: grad + 1)
    (a + b).sum().backward()
    return leaf.grad - x


def c_dk_intermediate_hook_closure_over_tensor(x, leaf):
    y = leaf.sin()
    leaf.register_hook(lambda grad: grad + y.detach())
    z = y.sin()
    z.sum().backward()
    return leaf.grad * 2


def c_dk_nested_function_registers_hook(x, leaf):
    def run():
        y = leaf.sin()
        leaf.register_hook(lambda grad: grad + x)
        return y.sin()

    run().sum().backward()
    return leaf.grad + 1


def c_dk_intermediate_two_partial_hooks(x, leaf):
    y = leaf.mul(2)
    y.register_hook(functools.partial(_add_k, k=3))
    y.register_hook(functools.partial(_add_k, k=4))
    z = y.mul(3)
    z.backward(torch.ones(3))
    return z + 0, leaf.grad


def c_dk_intermediate_hook_records(x, leaf):
    seen = []
    y = leaf * x
    y.register_hook(lambda g: seen.append(g.sum()))
    (y * y).sum().backward()
    return leaf.grad + 1, seen[0] * 1


def c_dk_output_hook_then_backward(x, leaf):
    out = leaf.exp() * x
    out.register_hook(lambda g: g * 0.5)
    out.backward(torch.ones(3))
    return out.detach() + 1, leaf.grad


def c_dk_view_hook(x, leaf):
    v = leaf[:2]
    v.register_hook(lambda g: g * 10)
    (v * x[:2]).sum().backward()
    return leaf.grad + 1


def c_dk_hook_on_each_of_list(x, leaf):
    parts = [leaf * 1, leaf * 2, leaf * 3]
    for i, p in enumerate(parts):
        p.register_hook(functools.partial(_add_k, k=i))
    sum(p.sum() for p in parts).backward()
    return leaf.grad * x


# -- retain_grad and post-accumulate hooks -----------------------------------------------------------------
def c_dk_retain_grad_intermediate(x, leaf):
    y = leaf * x
    y.retain_grad()
    (y * y).sum().backward()
    return y.grad + 1, leaf.grad


def c_dk_retain_grad_then_hook(x, leaf):
    y = leaf * 3
    y.retain_grad()
    y.register_hook(lambda g: g * 2)
    y.sum().backward()
    return y.grad + x, leaf.grad


def c_dk_retains_grad_flag(x, leaf):
    y = leaf * 2
    before = y.retains_grad
    y.retain_grad()
    return y + x, before, y.retains_grad


def c_dk_retain_grad_on_leaf_noop(x, leaf):
    leaf.retain_grad()
    (leaf * x).sum().backward()
    return leaf.grad + 1, leaf.retains_grad


def c_dk_post_accumulate_grad_hook(x, leaf):
    seen = []

    def after(t):
        seen.append(t.grad.clone())
        t.grad.mul_(5)

    leaf.register_post_accumulate_grad_hook(after)
    (leaf * x).sum().backward()
    return leaf.grad + 1, seen[0]


def c_dk_post_accumulate_hook_updates_leaf(x, leaf):
    def step(t):
        with torch.no_grad():
            t.sub_(t.grad * 0.1)

    leaf.register_post_accumulate_grad_hook(step)
    (leaf * x).sum().backward()
    return leaf.detach() * 1, leaf.grad


def c_dk_post_accumulate_registered_no_backward(x, leaf):
    leaf.register_post_accumulate_grad_hook(lambda t: t.grad.zero_() and None)
    return leaf * x, len(leaf._post_accumulate_grad_hooks)


def c_dk_post_accumulate_on_non_leaf_raises(x, leaf):
    y = leaf * 2
    try:
        y.register_post_accumulate_grad_hook(lambda t: None)
    except RuntimeError as e:
        return y + x, str(e)
    return y, ""


# -- hooks on parameters -----------------------------------------------------------------------------------
def _linear():
    torch.manual_seed(0)
    return (nn.Linear(3, 2),)


def c_dk_parameter_hook_scales_weight_grad(x, lin):
    lin.weight.register_hook(lambda g: g * 2)
    lin(x + 1).sum().backward()
    return lin.weight.grad + 0, lin.bias.grad


c_dk_parameter_hook_scales_weight_grad.extra_args = _linear


def c_dk_hooks_on_all_parameters(x, lin):
    norms = {}
    for name, p in lin.named_parameters():
        p.register_hook(functools.partial(lambda n, g: norms.__setitem__(n, g.sum()), name))
    lin(x * 2).sum().backward()
    return lin.bias.grad * 1, sorted(norms), norms["bias"]


c_dk_hooks_on_all_parameters.extra_args = _linear


def c_dk_parameter_hook_removed(x, lin):
    h = lin.bias.register_hook(lambda g: g * 100)
    h.remove()
    lin(x).sum().backward()
    return lin.bias.grad + x[:2]


c_dk_parameter_hook_removed.extra_args = _linear


# -- registering without running autograd: the hook is state the frame leaves --------------------------------
def c_dk_register_on_input_no_backward(x, leaf):
    leaf.register_hook(lambda grad: grad * 2)
    return x * 2, leaf.detach() + 1


def c_dk_register_local_on_input_no_backward(x, leaf):
    def local_hook(grad):
        return grad * 2

    y = x.sin()
    leaf.register_hook(local_hook)
    return y + 1, leaf.requires_grad


def c_dk_register_then_remove_no_backward(x, leaf):
    handle = leaf.register_hook(_global_half)
    z = x * x
    handle.remove()
    return z + 1


def c_dk_register_on_intermediate_no_backward(x, leaf):
    y = leaf + 1
    y.register_hook(lambda g: g * 2)
    z = y + 1
    return z.detach() * x


def c_dk_handle_kept_on_module(x, leaf):
    holder = nn.Module()
    holder.handle = None
    holder.handle = leaf.register_hook(lambda g: g * 2)
    return x * 2, holder.handle is not None


def c_dk_hook_dict_grows(x, leaf):
    leaf.register_hook(_global_half)
    leaf.register_hook(_global_times_three)
    return x + 1, len(leaf._backward_hooks)


def c_dk_handle_class_name(x, leaf):
    h = leaf.register_hook(_global_half)
    out = x.cos()
    return out + 1, type(h).__name__


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

for _fn in CONSTRUCTS:  # a fresh leaf for every program that names one
    if "leaf" in _fn.__code__.co_varnames[: _fn.__code__.co_argcount] and not hasattr(_fn, "extra_args"):
        _fn.extra_args = _leaf
