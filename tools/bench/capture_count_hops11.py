"""Higher-order operators' bodies with Python structure, after the ideas of PyTorch's split
test/dynamo/_higher_order_ops_test_core.py and _higher_order_ops_test_activation_checkpointing.py, for
``capture_count.py --only hops11``: ``wrap`` over enums, objects and nested pytrees, keyword-only bodies, sizes
as arguments, values made in an outer body, ``cond`` with pytree operands and no operands, nested ``map``,
``while_loop`` over a module, and checkpointed functions with grad-mode and autocast blocks inside. Each is
written afresh over one tensor.
"""

from __future__ import annotations

import enum

import torch
import torch.utils._pytree as pytree
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

_FREE = torch.tensor([0.25, -0.5, 1.5])
_SCALE = 1.75
_LIN = torch.nn.Linear(3, 3)
torch.nn.init.constant_(_LIN.weight, 0.125)
torch.nn.init.constant_(_LIN.bias, -0.25)


class _Kind(enum.Enum):
    SIN = 0
    COS = 1


class _Box:
    def __init__(self, val):
        self.val = val


class _Buffered(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.full((3,), 2.0))

    def forward(self, x, flag):
        z = torch.ones(3) * 0.5

        def true_fn(t):
            return t.sum() + self.buf.sum() + z.sum()

        def false_fn(t):
            return t.sum() - z.sum() - self.buf.sum()

        return torch.cond(flag, true_fn, false_fn, (x,))


# -- wrap --------------------------------------------------------------------------------------------------------
def c_h11_wrap_enum_argument(x):
    def body(t, kind):
        if kind == _Kind.SIN:
            return t.sin()
        return t.cos()
    return wrap(body, x, _Kind.SIN) + wrap(body, x, _Kind.COS)


def c_h11_wrap_returns_only_captured(x):
    a = x * 3
    b = x - 1

    def body(t):
        return a, b, a
    p, q, r = wrap(body, x)
    return p + q + r


def c_h11_wrap_returns_captured_and_computed(x):
    def body(t):
        return t + _FREE, _FREE
    u, v = wrap(body, x)
    return u * v


def c_h11_wrap_nested_dict_argument(x):
    d = {"a": x, "b": (x + 1, [x * 2, x - 1, x + 5])}

    def body(d):
        return d["a"].sin() + d["b"][0].cos() - d["b"][1][2].sin()
    return wrap(body, d)


def c_h11_wrap_keyword_only_pytree(x):
    def body(*, a, b, c):
        c1, _ = c
        return a * 2 + b + c1
    y = x + 1
    return wrap(body, a=x, b=y, c=(y, x))


def c_h11_wrap_object_in_tuple(x):
    box = _Box(x + 2)
    return wrap(lambda z: z[0].sin() * z[1].val.cos(), (x, box))


def c_h11_wrap_size_argument(x):
    t = x.reshape(3, 1)
    n = t.size(0)
    return wrap(lambda u, n: u.view(n) * n, t, n)


def c_h11_wrap_slice_by_sizes(x):
    t = torch.arange(24.0).reshape(2, 3, 4) + x.sum()
    i = t.size(0) - 1
    j = t.size(1) - 2
    k = t.size(2) - 1
    return wrap(lambda u: u[:i, j:, :k], t)


def c_h11_wrap_tuple_with_size_and_float(x):
    t = x.reshape(3, 1)
    n = t.size(0)
    return wrap(lambda p: p[0].view(p[2]) + p[1], (t, 0.5, n))


def c_h11_wrap_value_made_in_outer_body(x):
    def outer(a, b):
        z = a + b
        return wrap(lambda u: wrap(lambda v: v + z, u), a)
    return wrap(outer, x, x * 2)


def c_h11_wrap_internal_nonlocal(x):
    def body(a, b):
        w = 1

        def set_w(t):
            nonlocal w
            w = t
            return t

        def bump(t):
            nonlocal w
            w = w + 1
            return t
        set_w(a)
        bump(a)
        return w + b
    return wrap(body, x, x * 3)


def c_h11_wrap_kwarg_default_given(x):
    def body(*, a, b, c=None):
        if c is None:
            return a * 2 + b
        return a * c
    return wrap(body, a=x, b=x + 1, c=8) + wrap(body, a=x, b=x + 1)


def c_h11_wrap_torch_keyword_input(x):
    return wrap(lambda z: torch.cos(input=z) + torch.add(input=z, other=z, alpha=2), x)


def c_h11_wrap_global_nested(x):
    return wrap(lambda t: wrap(lambda u: u + _FREE * _SCALE, t), x)


def c_h11_wrap_free_tensor_twice(x):
    def body(t):
        return _FREE.sin(), _FREE.cos()
    a, b = wrap(body, x)
    return a - b


def c_h11_wrap_no_grad_inside(x):
    w = x.detach().requires_grad_()

    def body(t):
        with torch.no_grad():
            u = t * 2
        return t * 3 + u
    out = wrap(body, w)
    return out.detach(), out.requires_grad


def c_h11_wrap_module_forward_hook(x):
    seen = {}
    lin = torch.nn.Linear(3, 3)
    torch.nn.init.constant_(lin.weight, 0.5)
    torch.nn.init.zeros_(lin.bias)
    lin.register_forward_hook(lambda m, i, o: seen.update(out=o.sum()))
    y = wrap(lambda t: lin(t), x)
    return y, len(seen)


# -- cond -------------------------------------------------------------------------------------------------------
def c_h11_cond_bool_tensor_operand_nested(x):
    def true_fn(p2, a, b):
        return a + b

    def false_fn(p2, a, b):
        return torch.cond(p2, lambda u, v: u.sin() - v.cos(), lambda u, v: u.cos() - v.sin(), (a, b))
    p1, p2 = x.sum() < 0, torch.tensor(False)
    return torch.cond(p1, true_fn, false_fn, (p2, x, x * 2))


def c_h11_cond_module_buffer_and_closure(x):
    m = _Buffered()
    return m(x, x.sum() > 1), m(x, x.sum() > 100)


def c_h11_cond_no_operands_no_closure(x):
    def true_fn():
        return torch.ones(3)

    def false_fn():
        return torch.ones(3).sin()
    return torch.cond(x.sum() > 0, true_fn, false_fn, ()) + x


def c_h11_cond_pytree_flatten_in_branch(x):
    def total(tree):
        leaves, _ = pytree.tree_flatten(tree)
        acc = 0
        for v in leaves:
            acc += v
        return acc

    def biggest(tree):
        leaves, _ = pytree.tree_flatten(tree)
        best = leaves[0]
        for v in leaves:
            best = torch.maximum(v, best)
        return best
    tree = (x, [[x + 1]], {"g": x * 2})
    return torch.cond(x.sum() > 1, total, biggest, (tree,))


def c_h11_cond_operands_left_out(x):
    y, z = x + 1, x * 2

    def true_fn():
        return y + 2

    def false_fn():
        return z + 1
    return torch.cond(x.sum() > 1, true_fn, false_fn)


def c_h11_cond_autocast_in_branch(x):
    def true_fn(t):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=False):
            return t.t().mm(t).sum(0)

    def false_fn(t):
        return t.sum(0)
    t = x.reshape(1, 3)
    return torch.cond(t.sum() > 0, true_fn, false_fn, (t,))


def c_h11_cond_branches_call_helper_with_kwargs(x):
    def helper(t, *, k=1, neg=False):
        return -t * k if neg else t * k

    def true_fn(t):
        return helper(t, k=3)

    def false_fn(t):
        return helper(t, neg=True)
    return torch.cond(x.sum() > 1, true_fn, false_fn, (x,))


# -- map --------------------------------------------------------------------------------------------------------
def c_h11_map_nested_map(x):
    xs = torch.stack([x, x + 1]).reshape(2, 3, 1).expand(2, 3, 3) + 0
    y = x * 0.5

    def inner(row, y):
        return hop_map(lambda e, y: e + y, row, y) * y.cos()
    return hop_map(inner, xs, y).sin()


def c_h11_map_pytree_result(x):
    def body(a):
        return a.clone(), [[[a * 2]]], (a - 1, (a + 1,)), {"k": a.sin()}
    return hop_map(body, torch.stack([x, x * 3]))


def c_h11_map_size_argument(x):
    xs = x.reshape(3, 1)
    return hop_map(lambda a, n: torch.sin(a + n), xs, xs.size(0))


def c_h11_map_two_results(x):
    return hop_map(lambda a: (a.sin(), a.cos()), x)


# -- while_loop --------------------------------------------------------------------------------------------------
def c_h11_while_module_in_body(x):
    def cond_fn(i, t):
        return i < 3

    def body_fn(i, t):
        return i + 1, _LIN(t)
    return while_loop(cond_fn, body_fn, (torch.tensor(0), x))


def c_h11_while_closure_and_kwargs_helper(x):
    step = x + 1

    def helper(t, *, scale):
        return t * scale + step

    def cond_fn(t):
        return t.sum() < 50

    def body_fn(t):
        return (helper(t, scale=2),)
    return while_loop(cond_fn, body_fn, (x,))


# -- checkpoint ---------------------------------------------------------------------------------------------------
def c_h11_ckpt_no_grad_block_inside(x):
    w = x.detach().requires_grad_()

    def fn(t):
        with torch.no_grad():
            s = t.sum()
        return t.sin() * s
    out = checkpoint(fn, w, use_reentrant=False)
    return out.detach(), out.requires_grad


def c_h11_ckpt_autocast_inside(x):
    def fn(t):
        with torch.autocast("cpu", enabled=False):
            return t.mm(t.t())
    return checkpoint(fn, x.reshape(1, 3), use_reentrant=False)


def c_h11_ckpt_dict_in_dict_out(x):
    def fn(d):
        return {"s": d["a"].sin() + d["b"], "c": d["a"].cos()}
    return checkpoint(fn, {"a": x, "b": x * 2}, use_reentrant=False)


def c_h11_ckpt_module_method(x):
    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lin = torch.nn.Linear(3, 3)
            torch.nn.init.constant_(self.lin.weight, 0.5)
            torch.nn.init.zeros_(self.lin.bias)

        def block(self, t, scale=1.0):
            return self.lin(t).relu() * scale

        def forward(self, t):
            return checkpoint(self.block, t, 2.0, use_reentrant=False)
    return Net()(x).detach()


def c_h11_ckpt_enable_grad_under_no_grad(x):
    w = x.detach().requires_grad_()
    with torch.no_grad():
        with torch.enable_grad():
            out = checkpoint(lambda t: t * t, w, use_reentrant=False)
    return out.detach(), out.requires_grad


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
