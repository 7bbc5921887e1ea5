"""torch.func transforms' bodies with Python structure and context managers around and inside them, after the
ideas of PyTorch's _higher_order_ops_test_functorch.py and test_ctx_manager.py, for ``capture_count.py --only
hops11``: ``grad`` over keyword arguments and dict auxiliaries, ``vmap`` over torch functions, nested four deep,
under ``no_grad`` or autocast inside, ``jacrev`` of ``jacrev``, ``functional_call`` over a ``Sequential``; user
context managers re-entered and nested in themselves, grad modes as objects and decorators, ``ExitStack`` over
grad modes, and managers inside transform bodies. Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib
import functools

import torch
import torch.func as tf

_SEQ = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.ReLU(), torch.nn.Linear(2, 1))
for _p in _SEQ.parameters():
    torch.nn.init.constant_(_p, 0.3)
_SEQ.register_buffer("offset", torch.tensor([0.5]))


class _Depth:
    """A manager counting how deep it is entered (re-entrant: one object in nested ``with``)."""

    def __init__(self):
        self.depth = 0
        self.seen = []

    def __enter__(self):
        self.depth += 1
        self.seen.append(self.depth)
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        return False


class _Scaled(contextlib.ContextDecorator):
    def __init__(self, log):
        self.log = log

    def __enter__(self):
        self.log.append("in")
        return self

    def __exit__(self, *exc):
        self.log.append("out")
        return False


# -- grad -------------------------------------------------------------------------------------------------------
def c_h11f_grad_keyword_argument(x):
    def f(t, *, scale, shift=0.0):
        return (t * scale + shift).sin().sum()
    return tf.grad(f)(x, scale=2.0, shift=x.sum())


def c_h11f_grad_two_argnums_dict_aux(x):
    def f(a, b):
        out = (a * b).sum()
        return out, {"a": a.cos(), "n": b.sum()}
    (ga, gb), aux = tf.grad(f, argnums=(0, 1), has_aux=True)(x, x + 1)
    return ga, gb, aux["a"], aux["n"]


def c_h11f_grad_closure_python_float(x):
    k = 3.5

    def f(t):
        return (t * k).cos().sum()
    return tf.grad(f)(x)


def c_h11f_grad_under_no_grad(x):
    with torch.no_grad():
        g = tf.grad(lambda t: (t ** 3).sum())(x)
    return g, torch.is_grad_enabled()


def c_h11f_grad_body_no_grad_block(x):
    def f(t):
        with torch.no_grad():
            c = t.sum()
        return (t * c).sum()
    return tf.grad(f)(x)


def c_h11f_grad_body_enable_grad_decorated_helper(x):
    @torch.enable_grad()
    def helper(t):
        return t.exp()

    def f(t):
        return helper(t).sum()
    return tf.grad(f)(x)


def c_h11f_grad_and_value_of_module_loss(x):
    params = dict(_SEQ.named_parameters())

    def loss(p, t):
        return tf.functional_call(_SEQ, p, (t,)).sum()
    g, v = tf.grad_and_value(loss)(params, x)
    return g["0.weight"], g["2.bias"], v


# -- vmap -------------------------------------------------------------------------------------------------------
def c_h11f_vmap_torch_mul_scalar(x):
    return torch.vmap(torch.mul, in_dims=(0, None))(x, 3.14), torch.vmap(torch.mul, in_dims=(0, None))(x, 3)


def c_h11f_vmap_four_levels(x):
    def gn(a, b, c, d):
        return a + b + c + d
    fn = torch.vmap(gn, in_dims=(0, None, None, None))
    fn = torch.vmap(fn, in_dims=(None, 0, None, None))
    fn = torch.vmap(fn, in_dims=(None, None, 0, None))
    fn = torch.vmap(fn, in_dims=(None, None, None, 0))
    return fn(x, x + 1, x * 2, x - 1)


def c_h11f_vmap_nested_inner_helper(x):
    def inner(t):
        return torch.func.vmap(lambda r: r.sum(0) + r.sum(1))(t)
    t = x.reshape(1, 1, 3, 1) * torch.ones(2, 3, 3, 3)
    return torch.func.vmap(lambda r: inner(r.cos()))(t)


def c_h11f_vmap_in_dims_loop(x):
    t = x.reshape(3, 1) * torch.ones(3, 3) + torch.arange(3.0)
    outs = []
    for d in (0, 1):
        outs.append(torch.vmap(lambda r: r * 2 + r.sum(), in_dims=d)(t))
    return outs


def c_h11f_vmap_new_tensor_via_op(x):
    def f(r):
        return r + torch.ones_like(r) * r.new_full((), 2.0) + torch.zeros(())
    return torch.vmap(f)(x.reshape(3, 1))


def c_h11f_vmap_body_no_grad(x):
    w = x.detach().requires_grad_()

    def f(r):
        with torch.no_grad():
            c = r * 2
        return r * c
    out = torch.vmap(f)(w)
    return out.detach(), out.requires_grad


def c_h11f_vmap_body_autocast_disabled(x):
    def f(r):
        with torch.autocast("cpu", enabled=False):
            return r.reshape(1, 3).mm(r.reshape(3, 1)).reshape(())
    return torch.vmap(f)(torch.stack([x, x + 1]))


def c_h11f_vmap_kwargs_dict_input(x):
    def f(d, *, scale):
        return d["a"] * scale + d["b"]
    return torch.vmap(functools.partial(f, scale=2.0))({"a": x, "b": x * 3})


# -- other transforms -------------------------------------------------------------------------------------------
def c_h11f_jacrev_of_jacrev(x):
    return tf.jacrev(tf.jacrev(lambda t: t.sin() * t.sum()))(x)


def c_h11f_jvp_free_python_scalar(x):
    k = 2.5
    return tf.jvp(lambda t: (t * k).sin(), (x,), (torch.ones(3),))


def c_h11f_functional_call_sequential_buffer(x):
    params = {n: p * 2 for n, p in _SEQ.named_parameters()}
    buffers = {"offset": torch.tensor([1.5])}
    out = tf.functional_call(_SEQ, (params, buffers), (x.reshape(1, 3),))
    return out, tf.functional_call(_SEQ, params, (x.reshape(1, 3),))


def c_h11f_vjp_python_struct_output(x):
    def f(t):
        return {"s": t.sin(), "pair": (t * 2, t.cos())}
    out, fn = tf.vjp(f, x)
    cot = {"s": torch.ones(3), "pair": (torch.ones(3), torch.full((3,), 2.0))}
    return out["s"], fn(cot)


# -- context managers -------------------------------------------------------------------------------------------
def c_h11f_ctx_same_object_nested(x):
    cm = _Depth()
    with cm:
        y = x + cm.depth
        with cm as again:
            y = y * again.depth
    return y, cm.depth, list(cm.seen)


def c_h11f_ctx_object_reentered_in_loop(x):
    cm = _Depth()
    y = x
    for i in range(3):
        with cm:
            y = y + cm.depth * i
    return y, cm.seen


def c_h11f_ctx_context_decorator_subclass(x):
    log = []

    @_Scaled(log)
    def g(t):
        log.append("body")
        return t * 2
    return g(x) + g(x), log


def c_h11f_ctx_no_grad_object_reused(x):
    w = x.detach().requires_grad_()
    ng = torch.no_grad()
    with ng:
        a = w * 2
    b = w * 3
    with ng:
        c = w * 4
    return a.requires_grad, b.requires_grad, c.requires_grad, (a + b + c).detach()


def c_h11f_ctx_set_grad_enabled_wraps_function(x):
    w = x.detach().requires_grad_()
    g = torch.set_grad_enabled(False)(lambda t: t * 2)
    out = g(w)
    return out.requires_grad, torch.is_grad_enabled(), out


def c_h11f_ctx_exit_stack_grad_modes(x):
    w = x.detach().requires_grad_()
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        a = w * 2
        stack.enter_context(torch.enable_grad())
        b = w * 3
    return a.requires_grad, b.requires_grad, (a + b).detach()


def c_h11f_ctx_generator_manager_sets_grad(x):
    @contextlib.contextmanager
    def frozen(flag):
        prev = torch.is_grad_enabled()
        torch.set_grad_enabled(flag)
        try:
            yield prev
        finally:
            torch.set_grad_enabled(prev)
    w = x.detach().requires_grad_()
    with frozen(False) as prev:
        a = w * 2
    return a.requires_grad, prev, torch.is_grad_enabled(), a


def c_h11f_ctx_manager_inside_grad_body(x):
    cm = _Depth()

    def f(t):
        with cm:
            return (t * cm.depth).sin().sum()
    return tf.grad(f)(x), cm.depth


def c_h11f_ctx_autocast_object_reused(x):
    ac = torch.autocast("cpu", dtype=torch.bfloat16)
    m = x.reshape(1, 3)
    with ac:
        a = m.t().mm(m)
    b = m.t().mm(m)
    with ac:
        c = m.t().mm(m)
    return a.dtype, b.dtype, c.dtype, (a.float() + b + c.float())


def c_h11f_ctx_nested_mixed_grad_and_user(x):
    w = x.detach().requires_grad_()
    cm = _Depth()
    with torch.no_grad(), cm:
        with torch.enable_grad(), cm:
            a = w * cm.depth
        b = w * cm.depth
    return a.requires_grad, b.requires_grad, (a + b).detach(), cm.seen


def c_h11f_ctx_inference_mode_decorated_inside_no_grad(x):
    @torch.inference_mode()
    def g(t):
        return t * 2
    with torch.no_grad():
        y = g(x)
    return y.is_inference(), y.clone()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
