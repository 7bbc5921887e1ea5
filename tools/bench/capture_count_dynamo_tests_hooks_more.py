"""Module hooks and saved-tensor hooks, modelled on PyTorch's test/dynamo/test_hooks.py, for
``capture_count.py --only dynamo_tests_hooks``: forward, pre-forward (with and without kwargs, prepended,
``always_call``) and full backward hooks registered and removed inside and around the compiled frame, handles used
as context managers, hooks that remove themselves, global module hooks, and ``torch.autograd.graph``'s
``saved_tensors_hooks`` / ``disable_saved_tensors_hooks`` regions around ops whose saved tensors autograd packs.
Every module is made afresh (and seeded) for each run through ``extra_args``.
"""

from __future__ import annotations

import functools

import torch
from torch import nn


def _fresh(make):
    """An ``extra_args`` that hands the program a module made afresh (and seeded) for each run."""

    def made():
        torch.manual_seed(0)
        return (make(),)

    return made


def _lin():
    return nn.Linear(3, 3)


class _Double(nn.Module):
    def forward(self, x):
        return x * 2


class _Pair(nn.Module):
    def __init__(self):
        super().__init__()
        self.a = nn.Linear(3, 3)
        self.b = _Double()

    def forward(self, x):
        return self.b(self.a(x)).relu()


def _doubled_forward_hook(mod, args, out):
    return out * 2


# -- forward hooks registered inside the frame ------------------------------------------------------------
def c_dk_mod_forward_hook_then_removed(x, lin):
    handle = lin.register_forward_hook(_doubled_forward_hook)
    a = lin(x + 1)
    handle.remove()
    b = lin(x + 1)
    return a - b


c_dk_mod_forward_hook_then_removed.extra_args = _fresh(_lin)


def c_dk_mod_forward_hook_records_output(x, lin):
    seen = []
    lin.register_forward_hook(lambda m, args, out: seen.append(out.sum()))
    y = lin(x * 3)
    return y + 1, len(seen), seen[0] * 1


c_dk_mod_forward_hook_records_output.extra_args = _fresh(_lin)


def c_dk_mod_pre_hook_scales_input(x, lin):
    lin.register_forward_pre_hook(lambda m, args: (args[0] * 10,))
    return lin(x.cos()) + 1


c_dk_mod_pre_hook_scales_input.extra_args = _fresh(_lin)


def c_dk_mod_pre_hook_with_kwargs(x, lin):
    def pre(m, args, kwargs):
        return (args[0] + 1,), kwargs

    lin.register_forward_pre_hook(pre, with_kwargs=True)
    return lin(x) * 2


c_dk_mod_pre_hook_with_kwargs.extra_args = _fresh(_lin)


def c_dk_mod_forward_hook_with_kwargs(x, lin):
    def post(m, args, kwargs, out):
        return out + len(kwargs)

    lin.register_forward_hook(post, with_kwargs=True)
    return lin(x - 1).sum()


c_dk_mod_forward_hook_with_kwargs.extra_args = _fresh(_lin)


def c_dk_mod_prepended_hook_runs_first(x, lin):
    order = []
    lin.register_forward_hook(lambda m, a, out: order.append("second") or out * 2)
    lin.register_forward_hook(lambda m, a, out: order.append("first") or out + 1, prepend=True)
    return lin(x) * 1, order


c_dk_mod_prepended_hook_runs_first.extra_args = _fresh(_lin)


def c_dk_mod_handle_context_manager(x, lin):
    with lin.register_forward_hook(_doubled_forward_hook):
        a = lin(x)
    b = lin(x)
    return a + b


c_dk_mod_handle_context_manager.extra_args = _fresh(_lin)


def c_dk_mod_hook_removes_itself(x, lin):
    calls = []

    def once(m, args, out):
        calls.append(1)
        handle.remove()
        return out * 3

    handle = lin.register_forward_hook(once)
    a = lin(x)
    b = lin(x)
    return a + b, len(calls)


c_dk_mod_hook_removes_itself.extra_args = _fresh(_lin)


def c_dk_mod_hook_on_submodule(x, pair):
    pair.b.register_forward_hook(lambda m, a, out: out + 100)
    return pair(x.sin()) * 1


c_dk_mod_hook_on_submodule.extra_args = _fresh(_Pair)


def c_dk_mod_hooks_on_all_submodules(x, pair):
    names = []
    for name, sub in pair.named_children():
        sub.register_forward_pre_hook(functools.partial(lambda n, m, args: names.append(n), name))
    return pair(x + 2) - 1, names


c_dk_mod_hooks_on_all_submodules.extra_args = _fresh(_Pair)


def c_dk_mod_forward_hook_count(x, lin):
    lin.register_forward_hook(_doubled_forward_hook)
    h = lin.register_forward_pre_hook(lambda m, a: None)
    n = len(lin._forward_hooks) + len(lin._forward_pre_hooks)
    h.remove()
    return lin(x) + n, len(lin._forward_pre_hooks)


c_dk_mod_forward_hook_count.extra_args = _fresh(_lin)


def c_dk_mod_always_call_hook_on_error(x, lin):
    seen = []
    lin.register_forward_hook(lambda m, a, out: seen.append("ran"), always_call=True)
    try:
        lin(x.reshape(1, 3, 1))
    except RuntimeError:
        return x + 1, seen
    return x, seen


c_dk_mod_always_call_hook_on_error.extra_args = _fresh(_lin)


def c_dk_global_forward_pre_hook_in_frame(x, lin):
    handle = nn.modules.module.register_module_forward_pre_hook(lambda m, args: (args[0] * 2,))
    try:
        y = lin(x)
    finally:
        handle.remove()
    return y + lin(x)


c_dk_global_forward_pre_hook_in_frame.extra_args = _fresh(_lin)


def _prehooked():
    m = _lin()
    m.register_forward_pre_hook(lambda mod, args: (args[0] - 1,))
    return m


def c_dk_mod_hook_from_outside_frame(x, lin):
    return lin(x * 2) + 1


c_dk_mod_hook_from_outside_frame.extra_args = _fresh(_prehooked)


# -- backward hooks on modules -----------------------------------------------------------------------------
def c_dk_mod_full_backward_hook_records(x, lin):
    shapes = []
    lin.register_full_backward_hook(lambda m, gin, gout: shapes.append(gout[0].shape))
    inp = x.reshape(1, 3).requires_grad_()
    lin(inp).sum().backward()
    return lin.bias.grad + 1, shapes


c_dk_mod_full_backward_hook_records.extra_args = _fresh(_lin)


def c_dk_mod_full_backward_hook_scales_grad_input(x, lin):
    lin.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 3,))
    inp = (x + 1).reshape(1, 3).requires_grad_()
    lin(inp).sum().backward()
    return inp.grad * 1


c_dk_mod_full_backward_hook_scales_grad_input.extra_args = _fresh(_lin)


def c_dk_mod_full_backward_pre_hook(x, lin):
    lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,))
    lin(x.reshape(1, 3)).sum().backward()
    return lin.weight.grad + 0


c_dk_mod_full_backward_pre_hook.extra_args = _fresh(_lin)


def c_dk_mod_backward_hook_forward_only(x, lin):
    called = []
    lin.register_full_backward_hook(lambda m, gin, gout: called.append(1))
    out = lin(x)
    return out * 2, called


c_dk_mod_backward_hook_forward_only.extra_args = _fresh(_lin)


def c_dk_mod_parameter_hooks_then_step(x, lin):
    for p in lin.parameters():
        p.register_hook(lambda g: g.clamp(-1, 1))
    lin(x * 5).sum().backward()
    with torch.no_grad():
        for p in lin.parameters():
            p.sub_(p.grad * 0.1)
    return lin.weight.detach() + 0, lin.bias.detach() * 1


c_dk_mod_parameter_hooks_then_step.extra_args = _fresh(_lin)


# -- hooks registered across calls: each call sees the hooks the calls before it left ---------------------
def c_dk_mod_hook_added_on_every_call(x, lin):
    lin.register_forward_hook(lambda m, a, out: out + 1)
    return lin(x) * 1, len(lin._forward_hooks)


c_dk_mod_hook_added_on_every_call.extra_args = _fresh(_lin)
c_dk_mod_hook_added_on_every_call.calls = 3


def _with_handle_slot():
    m = _lin()
    m.last_handle = None
    return m


def c_dk_mod_previous_calls_hook_removed(x, lin):
    if lin.last_handle is not None:
        lin.last_handle.remove()
    lin.last_handle = lin.register_forward_pre_hook(lambda m, args: (args[0] * 2,))
    return lin(x + 1), len(lin._forward_pre_hooks)


c_dk_mod_previous_calls_hook_removed.extra_args = _fresh(_with_handle_slot)
c_dk_mod_previous_calls_hook_removed.calls = 3


def c_dk_tensor_hook_added_on_every_call(x, leaf):
    leaf.register_hook(lambda g: g * 2)
    return x + len(leaf._backward_hooks), leaf.detach() * 2


c_dk_tensor_hook_added_on_every_call.calls = 3


def c_dk_tensor_hooks_then_backward_on_every_call(x, leaf):
    leaf.register_hook(lambda g: g + 1)
    (leaf * x).sum().backward()
    return leaf.grad * 1


c_dk_tensor_hooks_then_backward_on_every_call.calls = 3


# -- saved-tensor hooks ------------------------------------------------------------------------------------
def c_dk_saved_tensors_hooks_record(x, leaf):
    packed = []

    def pack(t):
        packed.append(t.shape)
        return t

    with torch.autograd.graph.saved_tensors_hooks(pack, lambda t: t):
        y = (leaf * leaf).sum()
    y.backward()
    return leaf.grad + x, len(packed) > 0


def c_dk_saved_tensors_hooks_scale_on_unpack(x, leaf):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t * 2):
        y = (leaf * x.exp()).sum()
    y.backward()
    return leaf.grad + 1


def c_dk_saved_tensors_hooks_no_backward(x):
    with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        y = x.sin() * 2
    return y + 1


def c_dk_disable_saved_tensors_hooks_region(x):
    with torch.autograd.graph.disable_saved_tensors_hooks("no hooks here"):
        y = x.exp() + 1
    return y * 2


def c_dk_disable_saved_hooks_blocks_pack(x, leaf):
    with torch.autograd.graph.disable_saved_tensors_hooks("refused"):
        try:
            with torch.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
                y = leaf * 2
        except RuntimeError as e:
            return x + 1, str(e)
    return y.detach(), "allowed"


def c_dk_save_on_cpu_region(x, leaf):
    with torch.autograd.graph.save_on_cpu():
        y = (leaf * leaf * x).sum()
    y.backward()
    return leaf.grad * 2


# -- an autograd.Function and a module hook together -------------------------------------------------------
class _ScaleGrad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t * 1

    @staticmethod
    def backward(ctx, g):
        return g * 3


def c_dk_function_output_hook(x, leaf):
    y = _ScaleGrad.apply(leaf)
    y.register_hook(lambda g: g + 1)
    y.sum().backward()
    return leaf.grad + x


def c_dk_grad_fn_hook(x, leaf):
    y = leaf * 2
    seen = []
    y.grad_fn.register_hook(lambda gin, gout: seen.append(len(gin)))
    y.sum().backward()
    return leaf.grad + x, seen


def c_dk_grad_fn_prehook(x, leaf):
    y = leaf.exp()
    y.grad_fn.register_prehook(lambda gout: (gout[0] * 2,))
    y.sum().backward()
    return leaf.grad * 1


def c_dk_no_grad_inside_hook(x, leaf):
    def hook(g):
        with torch.no_grad():
            return g * 2

    leaf.register_hook(hook)
    (leaf * x).sum().backward()
    return leaf.grad + 1, torch.is_grad_enabled()


def c_dk_hook_with_grad_mode_off_in_frame(x, leaf):
    with torch.no_grad():
        y = leaf * 2
    try:
        y.register_hook(lambda g: g)
    except RuntimeError:
        return y + x, "refused"
    return y, "allowed"


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]

for _fn in CONSTRUCTS:  # a fresh leaf for every program that names one
    if "leaf" in _fn.__code__.co_varnames[: _fn.__code__.co_argcount] and not hasattr(_fn, "extra_args"):
        _fn.extra_args = lambda: (torch.tensor([1.0, 2.0, 3.0], requires_grad=True),)
