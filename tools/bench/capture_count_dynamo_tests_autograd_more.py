"""Activation checkpointing modelled on PyTorch's test/dynamo/test_activation_checkpointing.py, for
``capture_count.py --only dynamo_tests_autograd``: ``torch.utils.checkpoint.checkpoint(fn, ..., use_reentrant=False)``
with keyword and non-tensor arguments, lambdas, partials, bound methods and modules, nested checkpoints, dropout and
``torch.rand`` in the region (with and without a backward), tuple, list and dict results, checkpoints in loops over
layers, closures over tensors and parameters, ``torch.autograd.grad`` of a result, ``preserve_rng_state=False``,
``checkpoint_sequential``, and selective checkpoint policies (``create_selective_checkpoint_contexts`` with an op
list or a policy function). Each is written afresh over one tensor.
"""

from __future__ import annotations

import functools
import io

import torch
import torch.nn.functional as F
import torch.utils.checkpoint
from torch.utils.checkpoint import CheckpointPolicy, checkpoint, create_selective_checkpoint_contexts

_SINK = io.StringIO()
_LIN = torch.nn.Linear(3, 3)
_LAYERS = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(3)])
_SEQ = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Tanh(), torch.nn.Linear(3, 3), torch.nn.ReLU())
_W = torch.tensor([[1.0, 0.5, 0.0], [0.0, 1.0, 0.5], [0.5, 0.0, 1.0]])


def _leaf(x):
    return x.clone().requires_grad_()


def _gn(a, b):
    return torch.sigmoid(torch.matmul(a, b))


# -- plain forms -----------------------------------------------------------------------------------------------------
def c_dg_ckpt_function(x):
    a = _leaf(x.reshape(1, 3))
    out = torch.utils.checkpoint.checkpoint(_gn, torch.sin(a), _W, use_reentrant=False)
    return out.detach() + 1


def c_dg_ckpt_global_name(x):
    out = checkpoint(_gn, torch.cos(x.reshape(1, 3)), _W, use_reentrant=False)
    return out * 2


def c_dg_ckpt_backward_grads(x):
    a = _leaf(x.reshape(1, 3))
    out = checkpoint(_gn, a.sin(), _W, use_reentrant=False)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_autograd_grad(x):
    a = _leaf(x)
    out = checkpoint(lambda t: t.exp() * t.sin(), a, use_reentrant=False)
    (g,) = torch.autograd.grad(out.sum(), a)
    return g + 1


def c_dg_ckpt_kwargs_to_fn(x):
    def gn(a, *, scale, shift=0.0):
        return a.tanh() * scale + shift

    out = checkpoint(gn, _leaf(x), scale=3.0, shift=1.0, use_reentrant=False)
    return out.detach()


def c_dg_ckpt_tensor_kwarg(x):
    def gn(a, b=None):
        return a * b if b is not None else a

    out = checkpoint(gn, _leaf(x), b=x + 2, use_reentrant=False)
    return out.detach().cos()


def c_dg_ckpt_non_tensor_args(x):
    def gn(a, k, flag, label):
        y = a * k
        if flag:
            y = y + len(label)
        return y

    return checkpoint(gn, _leaf(x), 2, True, "abc", use_reentrant=False).detach()


def c_dg_ckpt_none_arg(x):
    def gn(a, maybe):
        return a.sin() if maybe is None else a.cos()

    return checkpoint(gn, _leaf(x), None, use_reentrant=False).detach() + 1


def c_dg_ckpt_list_arg(x):
    def gn(parts):
        return parts[0] * parts[1] + parts[2]

    out = checkpoint(gn, [_leaf(x), x + 1, x * 2], use_reentrant=False)
    return out.detach()


def c_dg_ckpt_star_args(x):
    def gn(*ts):
        return sum(t.sin() for t in ts)

    return checkpoint(gn, _leaf(x), x + 1, x + 2, use_reentrant=False).detach()


def c_dg_ckpt_default_arg(x):
    def gn(a, power=2):
        return a**power

    return checkpoint(gn, _leaf(x), use_reentrant=False).detach() + x


def c_dg_ckpt_lambda(x):
    out = checkpoint(lambda a, b: (a + b).relu(), _leaf(x - 1), x, use_reentrant=False)
    return out.detach() * 2


def c_dg_ckpt_partial(x):
    def gn(k, a):
        return a.exp() * k

    out = checkpoint(functools.partial(gn, 0.5), _leaf(x), use_reentrant=False)
    return out.detach()


def c_dg_ckpt_closure_tensor(x):
    bias = x.cos()

    def gn(a):
        return a.sin() + bias

    return checkpoint(gn, _leaf(x), use_reentrant=False).detach()


def c_dg_ckpt_calls_helper(x):
    def helper(t):
        return t.sigmoid() * t

    def gn(a):
        return helper(helper(a))

    return checkpoint(gn, _leaf(x), use_reentrant=False).detach() + 1


def c_dg_ckpt_python_branch_on_arg(x):
    def gn(a, mode):
        return a.exp() if mode == "exp" else a.log1p()

    first = checkpoint(gn, _leaf(x), "exp", use_reentrant=False)
    second = checkpoint(gn, _leaf(x), "log", use_reentrant=False)
    return (first + second).detach()


def c_dg_ckpt_inside_no_grad(x):
    with torch.no_grad():
        out = checkpoint(lambda a: a.sin() * 2, x, use_reentrant=False)
    return out + 1, out.requires_grad


def c_dg_ckpt_input_not_requiring_grad(x):
    out = checkpoint(lambda a: a.cos() * 3, x + 1, use_reentrant=False)
    return out, out.requires_grad


def c_dg_ckpt_reentrant_with_leaf(x):
    a = _leaf(x)
    out = checkpoint(lambda t: t.sin() * t, a, use_reentrant=True)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_preserve_rng_false(x):
    out = checkpoint(_gn, x.reshape(1, 3), _W, use_reentrant=False, preserve_rng_state=False)
    return out + 1


def c_dg_ckpt_determinism_none(x):
    out = checkpoint(_gn, _leaf(x.reshape(1, 3)), _W, use_reentrant=False, determinism_check="none")
    return out.detach()


# -- results -----------------------------------------------------------------------------------------------------
def c_dg_ckpt_tuple_result(x):
    def gn(a):
        return a.sin(), a.cos()

    s, c = checkpoint(gn, _leaf(x), use_reentrant=False)
    return (s * c).detach()


def c_dg_ckpt_dict_result(x):
    def gn(a):
        return {"s": a.sin(), "e": a.exp()}

    out = checkpoint(gn, _leaf(x), use_reentrant=False)
    return (out["s"] + out["e"]).detach(), sorted(out)


def c_dg_ckpt_list_result(x):
    def gn(a):
        return [a * k for k in range(3)]

    parts = checkpoint(gn, _leaf(x), use_reentrant=False)
    return torch.stack(parts).detach(), len(parts)


def c_dg_ckpt_result_with_int(x):
    def gn(a):
        return a.relu(), 4

    y, n = checkpoint(gn, _leaf(x - 1), use_reentrant=False)
    return y.detach() * n, n


def c_dg_ckpt_result_with_none(x):
    def gn(a):
        return a.sin(), None

    y, nothing = checkpoint(gn, _leaf(x), use_reentrant=False)
    return y.detach(), nothing is None


def c_dg_ckpt_result_used_in_place(x):
    out = checkpoint(lambda a: a * 2, x, use_reentrant=False)
    out.add_(1)
    return out


# -- nesting, loops and modules ------------------------------------------------------------------------------------
def c_dg_ckpt_nested(x):
    def inner(a):
        return a.sin() * 2

    def outer(a):
        return checkpoint(inner, a.cos(), use_reentrant=False) + a

    a = _leaf(x)
    out = checkpoint(outer, a, use_reentrant=False)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_two_in_a_row(x):
    a = _leaf(x)
    h = checkpoint(torch.sin, a, use_reentrant=False)
    h = checkpoint(torch.exp, h, use_reentrant=False)
    h.sum().backward()
    return h.detach(), a.grad


def c_dg_ckpt_loop_over_layers(x):
    h = _leaf(x.reshape(1, 3))
    for layer in _LAYERS:
        h = checkpoint(layer, h, use_reentrant=False).relu()
    return h.detach()


def c_dg_ckpt_module_instance(x):
    out = checkpoint(_LIN, _leaf(x.reshape(1, 3)), use_reentrant=False)
    out.sum().backward()
    return out.detach(), _LIN.weight.grad is not None


def c_dg_ckpt_sequential_module(x):
    return checkpoint(_SEQ, x.reshape(1, 3), use_reentrant=False) + 1


def c_dg_ckpt_checkpoint_sequential(x):
    out = torch.utils.checkpoint.checkpoint_sequential(_SEQ, 2, _leaf(x.reshape(1, 3)), use_reentrant=False)
    return out.detach()


class _Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def inner(self, h):
        return F.gelu(self.lin(h))

    def forward(self, h):
        return checkpoint(self.inner, h, use_reentrant=False) + h


_BLOCK = _Block()


def c_dg_ckpt_bound_method_in_forward(x):
    return _BLOCK(x.reshape(1, 3)) * 2


def c_dg_ckpt_module_forward_grads(x):
    a = _leaf(x.reshape(1, 3))
    out = _BLOCK(a)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_closure_parameter(x):
    w = torch.nn.Parameter(torch.ones(3))

    def gn(a):
        return (a * w).sin()

    out = checkpoint(gn, x + 1, use_reentrant=False)
    out.sum().backward()
    return out.detach(), w.grad


def c_dg_ckpt_layer_norm_gelu(x):
    def gn(a):
        return F.gelu(F.layer_norm(a, (3,)))

    return checkpoint(gn, _leaf(x.reshape(1, 3)), use_reentrant=False).detach()


# -- random numbers in the region --------------------------------------------------------------------------------
def c_dg_ckpt_dropout_no_grad_needed(x):
    torch.manual_seed(0)
    out = checkpoint(lambda a: F.dropout(a, p=0.5, training=True), x + 1, use_reentrant=False)
    return out


def c_dg_ckpt_dropout_backward(x):
    torch.manual_seed(1)
    a = _leaf(x + 1)
    out = checkpoint(lambda t: F.dropout(t.sin(), p=0.3, training=True), a, use_reentrant=False)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_rand_like(x):
    torch.manual_seed(2)
    a = _leaf(x)
    out = checkpoint(lambda t: t * torch.rand_like(t), a, use_reentrant=False)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_dropout_module(x):
    torch.manual_seed(3)
    drop = torch.nn.Dropout(0.5)
    out = checkpoint(drop, x * 2, use_reentrant=False)
    return out + 1


# -- selective checkpointing ------------------------------------------------------------------------------------
def _save_mm():
    return create_selective_checkpoint_contexts([torch.ops.aten.mm.default])


def _policy(ctx, func, *args, **kwargs):
    if func == torch.ops.aten.mm.default:
        return CheckpointPolicy.MUST_SAVE
    return CheckpointPolicy.PREFER_RECOMPUTE


def c_dg_ckpt_selective_op_list(x):
    a = _leaf(x.reshape(1, 3))
    out = checkpoint(_gn, a, _W, use_reentrant=False, context_fn=_save_mm)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_selective_policy_fn(x):
    a = _leaf(x.reshape(1, 3))
    ctx = functools.partial(create_selective_checkpoint_contexts, _policy)
    out = checkpoint(_gn, a, _W, use_reentrant=False, context_fn=ctx)
    out.sum().backward()
    return out.detach(), a.grad


def c_dg_ckpt_selective_no_backward(x):
    out = checkpoint(_gn, x.reshape(1, 3), _W, use_reentrant=False, context_fn=_save_mm)
    return out * 2


# -- breaks inside the region --------------------------------------------------------------------------------------
def c_dg_ckpt_print_inside(x):
    def gn(a):
        print("in region", file=_SINK)
        return a.sin()

    return checkpoint(gn, x + 1, use_reentrant=False) * 2


def c_dg_ckpt_item_inside(x):
    def gn(a):
        return a * a.sum().item()

    return checkpoint(gn, x + 1, use_reentrant=False).cos()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
