"""Higher-order operators nested in one another and over callables of every kind, after the ideas of PyTorch's
split test_higher_order_ops.py (core, functorch and activation-checkpointing parts), for ``capture_count.py
--only hops11``: ``cond`` whose branches are partials, bound methods, callable objects and modules; ``map``
over a module and a dict of slices; ``cond`` under ``vmap``; ``wrap`` and checkpoint under ``grad``;
``vmap`` with ``randomness``; ensembling with ``stack_module_state``. Each is written afresh over one tensor.
"""

from __future__ import annotations

import functools

import torch
import torch.func as tf
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint


def _lin(k):
    m = torch.nn.Linear(3, 3)
    torch.nn.init.constant_(m.weight, 0.1 * k)
    torch.nn.init.constant_(m.bias, -0.05 * k)
    return m


_A, _B = _lin(1), _lin(2)


class _Branches:
    def __init__(self, k):
        self.k = k

    def up(self, t):
        return t * self.k

    def down(self, t):
        return t - self.k


class _Call:
    def __init__(self, k):
        self.k = k

    def __call__(self, t):
        return t.sin() * self.k


# -- cond over callables of every kind ---------------------------------------------------------------------------
def c_h11m_cond_partial_branches(x):
    def scaled(t, k):
        return t * k
    return torch.cond(x.sum() > 1, functools.partial(scaled, k=3.0), functools.partial(scaled, k=-1.0), (x,))


def c_h11m_cond_bound_method_branches(x):
    b = _Branches(2.0)
    return torch.cond(x.sum() > 1, b.up, b.down, (x,))


def c_h11m_cond_callable_object_branches(x):
    return torch.cond(x.sum() > 1, _Call(2.0), _Call(-1.0), (x,))


def c_h11m_cond_lambda_default_args(x):
    k = 4.0
    return torch.cond(x.sum() > 1, lambda t, k=k: t * k, lambda t, k=k: t - k, (x,))


def c_h11m_cond_module_branches_params(x):
    return torch.cond(x.sum() > 1, _A, _B, (x,))


# -- map ---------------------------------------------------------------------------------------------------------
def c_h11m_map_over_module(x):
    return hop_map(_A, torch.stack([x, x * 2]))


def c_h11m_map_dict_of_slices(x):
    def body(d, w):
        return d["a"] * w + d["b"]
    return hop_map(body, {"a": torch.stack([x, x + 1]), "b": torch.stack([x * 2, x - 1])}, x)


def c_h11m_map_cond_inside(x):
    def body(r):
        return torch.cond(r.sum() > 3, lambda u: u * 2, lambda u: u - 2, (r,))
    return hop_map(body, torch.stack([x, x + 1, x + 2]))


# -- nested in transforms --------------------------------------------------------------------------------------------
def c_h11m_cond_under_vmap(x):
    def f(r):
        return torch.cond(r.sum() > 0, lambda u: u.sin(), lambda u: u.cos(), (r,))
    return torch.vmap(f)(torch.stack([x, -x - 1]))


def c_h11m_wrap_under_grad(x):
    return tf.grad(lambda t: wrap(lambda u: u.sin() * u, t).sum())(x)


def c_h11m_while_loop_in_checkpoint(x):
    def fn(t):
        return while_loop(lambda i, u: i < 3, lambda i, u: (i + 1, u * 2), (torch.tensor(0), t))[1]
    return checkpoint(fn, x, use_reentrant=False)


def c_h11m_cond_in_wrap_in_cond(x):
    def inner(t):
        return torch.cond(t.sum() > 2, lambda u: u + 1, lambda u: u - 1, (t,))

    def true_fn(t):
        return wrap(inner, t) * 2
    return torch.cond(x.sum() > 1, true_fn, lambda t: t.clone(), (x,))


def c_h11m_vmap_randomness_same(x):
    torch.manual_seed(0)
    return torch.vmap(lambda r: r + torch.rand(()), randomness="same")(torch.stack([x, x]))


def c_h11m_vmap_randomness_different(x):
    torch.manual_seed(0)
    return torch.vmap(lambda r: r * torch.rand_like(r), randomness="different")(torch.stack([x, x]))


def c_h11m_ensemble_stack_module_state(x):
    params, buffers = tf.stack_module_state([_A, _B])
    base = _lin(0).to("meta")

    def one(p, b, t):
        return tf.functional_call(base, (p, b), (t,))
    return torch.vmap(one, in_dims=(0, 0, None))(params, buffers, x)


def c_h11m_hessian_of_functional_call(x):
    params = dict(_A.named_parameters())

    def f(t):
        return tf.functional_call(_A, params, (t,)).pow(2).sum()
    return tf.hessian(f)(x)


def c_h11m_jacfwd_of_vmap(x):
    return tf.jacfwd(lambda t: torch.vmap(lambda r: r * t.sum())(t.reshape(3, 1)).sum(1))(x)





# -- cond spelled otherwise ------------------------------------------------------------------------------------------
def c_h11m_cond_op_all_keywords(x):
    from torch._higher_order_ops.cond import cond_op
    return cond_op(pred=x.sum() > 1, true_fn=lambda t: t.clone(), false_fn=lambda t: -t, operands=[x])


def c_h11m_cond_float_tensor_pred(x):
    return torch.cond(torch.Tensor([x.sum() > 1]), lambda t: t * 2, lambda t: t - 2, (x,))


def c_h11m_cond_branches_differ_in_shape(x):
    def true_fn():
        return torch.concat([x, x])

    def false_fn():
        return x.sin()
    return torch.cond(x.sum() > 0, true_fn, false_fn)


def c_h11m_cond_constant_tensor_pred_made_inside(x):
    lin = _A
    return torch.cond(torch.tensor(True), lambda t: lin(t), lambda t: lin(lin(t)), (x,))


def c_h11m_cond_nested_constant_preds_module(x):
    def true_branch(t):
        return torch.cond(torch.tensor(False), lambda u: _A(u), lambda u: _B(u), (t,))
    return torch.cond(torch.tensor(True), true_branch, lambda t: _A(_B(t)), (x,))
CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
