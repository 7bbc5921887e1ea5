"""torch.func transforms modelled on PyTorch's test/dynamo/test_higher_order_ops.py, for ``capture_count.py --only
dynamo_tests_hops2``: ``grad`` over free tensors, Python scalars, pytrees, ``argnums`` tuples and ``has_aux``;
``grad`` of ``grad``; ``vmap`` with ``in_dims``/``out_dims`` pytrees, ``None`` dims, keyword arguments, chunking,
free variables and new tensors made in the body; ``jvp``/``vjp``/``jacrev``/``jacfwd``/``hessian``/``linearize``
forms; ``functional_call`` with dicts, tuples of dicts and ``strict``. Bodies that break (a print, a data-dependent
branch) check that a failed capture leaves no functorch level behind. Each is written afresh over one tensor.
"""

from __future__ import annotations

import io

import torch
import torch.func as tf

_SINK = io.StringIO()
_FREE = torch.tensor([0.5, 1.5, 2.5])
_SCALE = 3.0
_LIN = torch.nn.Linear(3, 2)
_SEEN = []


# -- grad ---------------------------------------------------------------------------------------------------------
def c_h2_grad_free_tensor(x):
    y = x + 1

    def fn(t):
        return (t.sin() * y).sum()

    return tf.grad(fn)(x)


def c_h2_grad_free_global_tensor(x):
    return tf.grad(lambda t: (t * _FREE).cos().sum())(x)


def c_h2_grad_free_python_scalar(x):
    k = 2.5

    def fn(t):
        return (t * k).exp().sum()

    return tf.grad(fn)(x / 4)


def c_h2_grad_has_aux_tuple(x):
    def fn(t):
        s = t.sin()
        return s.sum(), (s, t.cos())

    g, (a, b) = tf.grad(fn, has_aux=True)(x)
    return g, a + b


def c_h2_grad_argnums_tuple(x):
    def fn(a, b):
        return (a * b).sum() + a.sum()

    ga, gb = tf.grad(fn, argnums=(0, 1))(x, x + 2)
    return ga, gb


def c_h2_grad_of_grad(x):
    def fn(t):
        return t.sin().sum()

    return tf.grad(lambda s: tf.grad(fn)(s).sum())(x)


def c_h2_grad_pytree_dict_input(x):
    def fn(d):
        return (d["a"] * d["b"]).sum()

    g = tf.grad(fn)({"a": x, "b": x + 1})
    return g["a"], g["b"]


def c_h2_grad_non_tensor_kwarg(x):
    def fn(t, *, power):
        return (t**power).sum()

    return tf.grad(fn)(x, power=3)


def c_h2_grad_body_prints(x):
    def fn(t):
        print("inside grad", file=_SINK)
        return t.cos().sum()

    return tf.grad(fn)(x), torch._C._functorch.peek_interpreter_stack() is None


def c_h2_grad_body_data_dependent_branch(x):
    def fn(t):
        if t.sum() > 0:
            return t.sin().sum()
        return t.cos().sum()

    return tf.grad(fn)(x), torch._C._functorch.peek_interpreter_stack() is None


def c_h2_grad_body_appends_to_list(x):
    _SEEN.clear()

    def fn(t):
        _SEEN.append(1)
        return (t * t).sum()

    return tf.grad(fn)(x), len(_SEEN)


def c_h2_grad_and_value_has_aux(x):
    def fn(t):
        return t.tanh().sum(), {"n": t.shape[0] * t.detach()}

    g, (v, aux) = tf.grad_and_value(fn, has_aux=True)(x)
    return g, v, aux["n"]


def c_h2_grad_nn_module_call(x):
    return tf.grad(lambda t: _LIN(t).sum())(x)


# -- vmap ---------------------------------------------------------------------------------------------------------
def c_h2_vmap_two_inputs_in_dims(x):
    a = torch.outer(x, x + 1)
    return tf.vmap(lambda p, q: p * q, in_dims=(0, 1))(a, a + 1)


def c_h2_vmap_none_dim(x):
    a = torch.outer(x, x + 2)
    return tf.vmap(lambda row, v: row @ v, in_dims=(0, None))(a, x)


def c_h2_vmap_multiple_outputs(x):
    a = torch.outer(x, x + 1)
    s, c = tf.vmap(lambda r: (r.sin(), r.cos()))(a)
    return s, c


def c_h2_vmap_out_dims_tuple(x):
    a = torch.outer(x, x + 1)
    s, c = tf.vmap(lambda r: (r.sin(), r.cos()), out_dims=(0, 1))(a)
    return s, c


def c_h2_vmap_dict_input(x):
    a = torch.outer(x, x + 1)
    return tf.vmap(lambda d: d["p"] + d["q"])({"p": a, "q": a * 2})


def c_h2_vmap_kwargs_not_batched(x):
    a = torch.outer(x, x + 1)

    def fn(r, *, scale):
        return r * scale

    return tf.vmap(fn)(a, scale=4.0)


def c_h2_vmap_new_tensor_in_body(x):
    a = torch.outer(x, x + 1)
    return tf.vmap(lambda r: r + torch.ones(3))(a)


def c_h2_vmap_chunk_size(x):
    a = torch.outer(x, x + 1)
    return tf.vmap(lambda r: r.sum(), chunk_size=2)(a)


def c_h2_vmap_of_vmap_free_var(x):
    a = torch.outer(x, x + 1)[None].repeat(2, 1, 1)
    w = x * 3
    return tf.vmap(tf.vmap(lambda r: r * w))(a)


def c_h2_vmap_body_prints(x):
    a = torch.outer(x, x + 1)

    def fn(r):
        print("inside vmap", file=_SINK)
        return r * 2

    return tf.vmap(fn)(a), torch._C._functorch.peek_interpreter_stack() is None


def c_h2_vmap_body_item(x):
    a = torch.outer(x, x + 1)
    try:
        tf.vmap(lambda r: r * r.sum().item())(a)
        refused = None
    except RuntimeError as e:
        refused = type(e).__name__
    return x + 1, refused, torch._C._functorch.peek_interpreter_stack() is None


def c_h2_vmap_returns_python_int(x):
    a = torch.outer(x, x + 1)
    try:
        tf.vmap(lambda r: 3)(a)
        refused = None
    except ValueError as e:
        refused = type(e).__name__
    return x + 1, refused


def c_h2_vmap_method_on_module(x):
    a = torch.outer(x, x + 1)
    return tf.vmap(_LIN)(a)


def c_h2_vmap_grad_per_sample(x):
    a = torch.outer(x, x + 1)

    def loss(w, row):
        return (w * row).sum() ** 2

    return tf.vmap(tf.grad(loss), in_dims=(None, 0))(x, a)


# -- jvp / vjp / jac* ---------------------------------------------------------------------------------------------
def c_h2_jvp_simple(x):
    out, tangent = tf.jvp(torch.sin, (x,), (torch.ones(3),))
    return out, tangent


def c_h2_jvp_two_inputs_has_aux(x):
    def fn(a, b):
        return a * b, (a + b).sum()

    out, tangent, aux = tf.jvp(fn, (x, x + 1), (torch.ones(3), torch.ones(3)), has_aux=True)
    return out, tangent, aux


def c_h2_jvp_of_jvp(x):
    def inner(t):
        return tf.jvp(torch.sin, (t,), (torch.ones(3),))[1]

    return tf.jvp(inner, (x,), (torch.ones(3),))


def c_h2_vmap_of_jvp(x):
    a = torch.outer(x, x + 1)
    return tf.vmap(lambda r: tf.jvp(torch.exp, (r,), (torch.ones(3),))[1])(a)


def c_h2_vjp_simple(x):
    out, pull = tf.vjp(torch.sin, x)
    (g,) = pull(torch.ones(3))
    return out, g


def c_h2_vjp_has_aux(x):
    out, pull, aux = tf.vjp(lambda t: (t.exp(), t.sum()), x, has_aux=True)
    return out, pull(torch.ones(3))[0], aux


def c_h2_vjp_multiple_outputs(x):
    out, pull = tf.vjp(lambda t: (t.sin(), t.cos()), x)
    (g,) = pull((torch.ones(3), torch.ones(3)))
    return out[0], out[1], g


def c_h2_vjp_dict_output(x):
    out, pull = tf.vjp(lambda t: {"s": t.sin(), "c": t.cos()}, x)
    (g,) = pull({"s": torch.ones(3), "c": torch.ones(3)})
    return out["s"], g


def c_h2_jacrev_two_tensors(x):
    ja, jb = tf.jacrev(lambda a, b: a * b.sin(), argnums=(0, 1))(x, x + 1)
    return ja, jb


def c_h2_jacrev_has_aux(x):
    j, aux = tf.jacrev(lambda t: (t.sin(), t.cos()), has_aux=True)(x)
    return j, aux


def c_h2_hessian_of_sum(x):
    return tf.hessian(lambda t: (t**3).sum())(x)


def c_h2_linearize(x):
    out, jvp_fn = tf.linearize(torch.sin, x)
    return out, jvp_fn(torch.ones(3))


# -- functional_call ------------------------------------------------------------------------------------------------
def c_h2_functional_call_dict(x):
    params = {"weight": torch.ones(2, 3), "bias": torch.zeros(2)}
    return tf.functional_call(_LIN, params, (x,))


def c_h2_functional_call_tuple_of_dicts(x):
    return tf.functional_call(_LIN, ({"weight": torch.ones(2, 3)}, {"bias": torch.full((2,), 2.0)}), (x,))


def c_h2_functional_call_kwargs(x):
    lin = torch.nn.Linear(3, 3)
    return tf.functional_call(lin, {"weight": torch.eye(3), "bias": torch.ones(3)}, args=(), kwargs={"input": x})


def c_h2_functional_call_strict_missing(x):
    try:
        tf.functional_call(_LIN, {"weight": torch.ones(2, 3)}, (x,), strict=True)
        refused = None
    except RuntimeError as e:
        refused = type(e).__name__
    return x + 1, refused


def c_h2_grad_of_functional_call(x):
    params = {"weight": torch.ones(2, 3), "bias": torch.zeros(2)}

    def loss(p):
        return tf.functional_call(_LIN, p, (x,)).sum()

    g = tf.grad(loss)(params)
    return g["weight"], g["bias"]


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
