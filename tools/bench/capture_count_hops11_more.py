"""torch.func transforms spelled with less common options, and context managers from torch's corners, after the
ideas of PyTorch's _higher_order_ops_test_functorch.py and test_ctx_manager.py, for ``capture_count.py --only
hops11``: ``hessian``/``jacrev``/``jacfwd`` over chosen argnums with auxiliaries, ``vmap`` over tensor methods,
dict ``in_dims`` and ``out_dims`` per result; ``detect_anomaly``, ``cudnn.flags``, ``record_function`` and
autocast as decorators, grad-mode objects entered twice. Each is written afresh over one tensor.
"""

from __future__ import annotations

import contextlib

import torch
import torch.func as tf
import torch.nn.functional as F


class _GradRestorer:
    """A manager switching grad mode off and restoring what it found."""

    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)
        return self

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)
        return False


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)
        torch.nn.init.constant_(self.lin.weight, 0.2)
        torch.nn.init.zeros_(self.lin.bias)

    @torch.no_grad()
    def frozen(self, t):
        return self.lin(t)

    @torch.enable_grad()
    def live(self, t):
        return self.lin(t)

    def forward(self, t):
        return self.frozen(t), self.live(t)


# -- transforms ------------------------------------------------------------------------------------------------------
def c_h11x_hessian_second_argument(x):
    def f(a, b):
        return (a.sin() * b.pow(3)).sum()
    return tf.hessian(f, argnums=1)(x, x + 1)


def c_h11x_jacrev_argnums_with_aux(x):
    def f(a, b):
        out = a * b.cos()
        return out, {"n": out.sum()}
    jac, aux = tf.jacrev(f, argnums=(0, 1), has_aux=True)(x, x * 2)
    return jac[0], jac[1], aux["n"]


def c_h11x_jacfwd_two_argnums(x):
    return tf.jacfwd(lambda a, b: a * b + a.exp(), argnums=(0, 1))(x, x - 1)


def c_h11x_vjp_with_aux(x):
    out, fn, aux = tf.vjp(lambda t: (t.sin(), t.sum()), x, has_aux=True)
    return out, fn(torch.ones(3))[0], aux


def c_h11x_jvp_with_aux(x):
    return tf.jvp(lambda t: (t.exp(), {"c": t.cos()}), (x,), (torch.ones(3),), has_aux=True)


def c_h11x_vmap_tensor_method(x):
    t = torch.stack([x, x * 2])
    return torch.vmap(torch.Tensor.sum)(t), torch.vmap(torch.dot)(t, t + 1)


def c_h11x_vmap_functional_with_kwargs(x):
    w = torch.eye(3) * 2
    return torch.vmap(lambda r: F.linear(r, w, bias=None))(torch.stack([x, x + 1]))


def c_h11x_vmap_dict_in_dims(x):
    def f(d):
        return d["a"] * d["b"].sum()
    return torch.vmap(f, in_dims=({"a": 0, "b": None},))({"a": torch.stack([x, x * 3]), "b": x})


def c_h11x_vmap_out_dims_per_result(x):
    def f(r):
        return r * 2, r.reshape(3, 1) * r
    return torch.vmap(f, out_dims=(1, 0))(torch.stack([x, x + 1]))


def c_h11x_vmap_python_list_built(x):
    def f(r):
        parts = [r[i] * (i + 1) for i in range(3)]
        return torch.stack(parts)
    return torch.vmap(f)(torch.stack([x, -x]))


def c_h11x_vmap_arange_from_size(x):
    return torch.vmap(lambda r: r + torch.arange(r.size(0)))(torch.stack([x, x]))


def c_h11x_grad_and_value_with_aux(x):
    def f(t):
        return (t ** 2).sum(), t.max()
    g, (v, aux) = tf.grad_and_value(f, has_aux=True)(x)
    return g, v, aux


def c_h11x_vmap_chunked_in_dims_none(x):
    return torch.vmap(lambda a, b: a * b, in_dims=(0, None), chunk_size=1)(torch.stack([x, x, x]), x + 1)


# -- context managers -------------------------------------------------------------------------------------------------
def c_h11x_ctx_class_restoring_grad_mode(x):
    w = x.detach().requires_grad_()
    with _GradRestorer() as r:
        a = w * 2
    return a.requires_grad, r.prev, torch.is_grad_enabled(), (w * 3).requires_grad


def c_h11x_ctx_module_methods_decorated(x):
    w = x.detach().requires_grad_()
    net = _Net()
    with torch.no_grad():
        a, b = net(w)
    return a.requires_grad, b.requires_grad, a.detach(), b.detach()


def c_h11x_ctx_enable_grad_object_nested_twice(x):
    w = x.detach().requires_grad_()
    eg = torch.enable_grad()
    with torch.no_grad():
        with eg:
            with eg:
                a = w * 2
            b = w * 3
        c = w * 4
    return a.requires_grad, b.requires_grad, c.requires_grad


def c_h11x_ctx_detect_anomaly(x):
    with torch.autograd.detect_anomaly(check_nan=False):
        y = x.sin() * 2
    return y


def c_h11x_ctx_cudnn_flags(x):
    with torch.backends.cudnn.flags(enabled=False):
        y = x.cos() + 1
    return y


def c_h11x_ctx_record_function_decorator(x):
    @torch.autograd.profiler.record_function("h11_region")
    def g(t):
        return t * 3
    return g(x) + 1


def c_h11x_ctx_autocast_decorator_dtype(x):
    @torch.autocast("cpu", dtype=torch.bfloat16)
    def g(m):
        return m.t().mm(m)
    out = g(x.reshape(1, 3))
    return out.dtype, out.float()


def c_h11x_ctx_nullcontext_enter_result(x):
    with contextlib.nullcontext(x * 2) as y:
        z = y + 1
    return z


def c_h11x_ctx_set_grad_enabled_statement(x):
    w = x.detach().requires_grad_()
    torch.set_grad_enabled(False)
    a = w * 2
    torch.set_grad_enabled(True)
    b = w * 2
    return a.requires_grad, b.requires_grad


def c_h11x_ctx_inference_mode_false_inside(x):
    with torch.inference_mode():
        with torch.inference_mode(False):
            a = x * 2
        b = x * 3
    return a.is_inference(), b.is_inference(), a + 0


def c_h11x_ctx_grad_mode_in_generator(x):
    def gen(t):
        with torch.no_grad():
            yield t * 2
        yield t * 3
    w = x.detach().requires_grad_()
    a, b = list(gen(w))
    return a.requires_grad, b.requires_grad


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
