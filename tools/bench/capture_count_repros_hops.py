"""Dynamo's higher-order-op tests rebuilt in our own words, for ``capture_count.py`` (``--only repros`` runs
them with ``capture_count_repros.py``'s): ``wrap``, ``torch.cond``, ``map``, ``while_loop``, ``checkpoint``, the
``torch.func`` transforms and autograd Functions, with closures, nested calls, pytree results and side
effects in their bodies.
"""

from __future__ import annotations

import functools

import torch
import torch.utils.checkpoint
from capture_count_repros import _SEQ, _SINK
from torch._higher_order_ops.wrap import wrap


# -- higher-order ops ----------------------------------------------------------------------------------
def c_wrap_closure(x):
    k = x.sum()
    outer = x * 2

    def body(t):
        return t + k + outer

    return wrap(body, x)


def c_wrap_nested_kwargs(x):
    def inner(t, *, scale):
        return t * scale

    def outer(t):
        return wrap(functools.partial(inner, scale=2.0), t) + 1

    return wrap(outer, x)


def c_wrap_pytree_output(x):
    def body(t):
        return {"a": t.sin(), "b": (t.cos(), [t + 1])}

    out = wrap(body, x)
    return out["a"] + out["b"][0] + out["b"][1][0]


def c_wrap_side_effect_list(x):
    seen = []

    def body(t):
        seen.append(t.shape[0])
        return t * 2

    return wrap(body, x) + len(seen), seen


def c_wrap_print_in_body(x):
    def body(t):
        print("inside", file=_SINK)
        return t * 2

    return wrap(body, x) + 1


def c_cond_closures(x):
    w = torch.ones(3)

    def true_fn(t):
        return t.sin() + w

    def false_fn(t):
        return t.cos() - w

    return torch.cond(x.sum() > 0, true_fn, false_fn, (x,))


def c_cond_tuple_outputs_nested(x):
    def inner_true(t):
        return t * 2

    def inner_false(t):
        return t * 3

    def true_fn(t):
        return torch.cond(t.mean() > 1, inner_true, inner_false, (t,)), t + 1

    def false_fn(t):
        return t - 1, t.clone()

    a, b = torch.cond(x.shape[0] > 2, true_fn, false_fn, (x,))
    return a + b


def c_cond_module_branch(x):
    lin = _SEQ[0]

    def true_fn(t):
        return lin(t).sum(0, keepdim=True).repeat(4)

    def false_fn(t):
        return t.new_zeros(4)

    return torch.cond(x.max() > 1, true_fn, false_fn, (x,))


def c_map_over_rows(x):
    from functorch.experimental.control_flow import map as cf_map

    xs = x.reshape(3, 1).expand(3, 2).contiguous()
    bias = torch.ones(2)

    def body(row, b):
        return row * 2 + b

    return cf_map(body, xs, bias)


def c_checkpoint(x):
    lin = _SEQ[0]

    def block(t):
        return torch.relu(lin(t)) * 2

    return torch.utils.checkpoint.checkpoint(block, x, use_reentrant=False).sum() + x


def c_func_grad_closure(x):
    w = x * 0 + 2

    def loss(t):
        return (t * w).sin().sum()

    g = torch.func.grad(loss)(x)
    value, g2 = torch.func.grad_and_value(loss)(x)
    return g + g2 + value


def c_func_vmap_closure(x):
    bias = torch.arange(2.0)

    def row(t):
        return t.sum() + bias

    out = torch.func.vmap(row)(x.reshape(3, 1))
    nested = torch.func.vmap(torch.func.vmap(torch.mul, in_dims=(0, None)), in_dims=(None, 0))(x, x)
    return out.sum(1) + nested.sum(0), torch.func.vmap(lambda t: t * 2, in_dims=0, out_dims=0)(x)


def c_func_jacrev_jvp_vjp(x):
    def f(t):
        return t.sin() * 2

    jac = torch.func.jacrev(f)(x)
    _, tangent = torch.func.jvp(f, (x,), (torch.ones(3),))
    _, vjp_fn = torch.func.vjp(f, x)
    (cot,) = vjp_fn(torch.ones(3))
    return jac.sum(0) + tangent + cot


def c_func_functional_call(x):
    lin = _SEQ[0]
    params = {k: v * 2 for k, v in lin.named_parameters()}
    return torch.func.functional_call(lin, params, (x,))


def c_func_grad_side_effect(x):
    log = []

    def loss(t):
        log.append(1)
        return (t * t).sum()

    return torch.func.grad(loss)(x), len(log)


def c_autograd_function(x):
    class _Twice(torch.autograd.Function):
        @staticmethod
        def forward(ctx, t):
            ctx.save_for_backward(t)
            return t * 2

        @staticmethod
        def backward(ctx, g):
            (t,) = ctx.saved_tensors
            return g * 2 + t * 0

    return _Twice.apply(x) + _SEQ_TWICE.apply(x)


class _SeqTwice(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t):
        return t.clone() * 3

    @staticmethod
    def backward(ctx, g):
        return g * 3


_SEQ_TWICE = _SeqTwice




# -- more higher-order ops -------------------------------------------------------------------------------
def c_vmap_in_dims_out_dims(x):
    m = x.reshape(3, 1).expand(3, 2).contiguous()

    def pair(row, scale, *, shift):
        return row * scale + shift, row.sum()

    a, b = torch.func.vmap(pair, in_dims=(0, None), out_dims=(1, 0))(m, 2.0, shift=1.0)
    chunked = torch.func.vmap(torch.sin, chunk_size=2)(m)
    return a.sum(0) + b + chunked.sum(1)


def c_grad_has_aux_argnums(x):
    def loss(a, b):
        out = (a * b).sum()
        return out, {"aux": out.detach() * 2}

    (ga, gb), aux = torch.func.grad(loss, argnums=(0, 1), has_aux=True)(x, x + 1)
    return ga + gb + aux["aux"]


def c_jacfwd_hessian(x):
    def f(t):
        return (t ** 3).sum()

    return torch.func.hessian(f)(x).sum(0) + torch.func.jacfwd(torch.sin)(x).diagonal()


def c_cond_in_loop(x):
    def up(t):
        return t + 1

    def down(t):
        return t - 1

    for i in range(3):
        x = torch.cond(x.sum() > i, up, down, (x,))
    return x


def c_while_loop(x):
    from torch._higher_order_ops.while_loop import while_loop

    def cond_fn(i, t):
        return i < 3

    def body_fn(i, t):
        return i + 1, t * 2

    _, out = while_loop(cond_fn, body_fn, (torch.tensor(0), x))
    return out


def c_checkpoint_module_kwargs(x):
    block = _SEQ

    def run(t, *, scale):
        return block(t) * scale

    return torch.utils.checkpoint.checkpoint(run, x, scale=2.0, use_reentrant=False)


class _ScaleFn(torch.autograd.Function):
    @staticmethod
    def forward(ctx, t, factor, name):
        ctx.factor = factor
        ctx.name = name
        out = t * factor
        mask = t > 0
        ctx.mark_non_differentiable(mask)
        ctx.save_for_backward(t)
        return out, mask

    @staticmethod
    def backward(ctx, g, g_mask):
        (t,) = ctx.saved_tensors
        return g * ctx.factor + t * 0, None, None


def c_autograd_function_nontensor_args(x):
    out, mask = _ScaleFn.apply(x, 3.0, "scale")
    return out + mask


def c_wrap_in_loop_with_closure(x):
    acc = x
    for k in range(3):
        def body(t, k=k):
            return t * (k + 1) + acc  # noqa: B023 (called at once)

        acc = wrap(body, acc)
    return acc


def c_functional_call_buffers(x):
    m = _NORM_MODULE
    state = {name: t.clone() for name, t in m.named_buffers()}
    state.update({name: p * 2 for name, p in m.named_parameters()})
    return torch.func.functional_call(m, state, (x.reshape(1, 3),))


_NORM_MODULE = torch.nn.BatchNorm1d(3).eval()


CONSTRUCTS = [c_wrap_closure, c_wrap_nested_kwargs, c_wrap_pytree_output, c_wrap_side_effect_list,
              c_wrap_print_in_body, c_cond_closures, c_cond_tuple_outputs_nested, c_cond_module_branch,
              c_map_over_rows, c_checkpoint, c_func_grad_closure, c_func_vmap_closure, c_func_jacrev_jvp_vjp,
              c_func_functional_call, c_func_grad_side_effect, c_autograd_function, c_vmap_in_dims_out_dims,
              c_grad_has_aux_argnums, c_jacfwd_hessian, c_cond_in_loop, c_while_loop, c_checkpoint_module_kwargs,
              c_autograd_function_nontensor_args, c_wrap_in_loop_with_closure, c_functional_call_buffers]
