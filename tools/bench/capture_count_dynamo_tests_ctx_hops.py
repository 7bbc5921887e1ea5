"""Higher-order ops modelled on PyTorch's test/dynamo/test_higher_order_ops.py, for ``capture_count.py --only
dynamo_tests_ctx``: ``wrap`` bodies that assign globals, nonlocals and attributes of outside objects (side
effects torch falls back on), keyword-only bodies, nested and pytree results, ``map`` with several results
and extra arguments, ``cond`` with no operands and a constant predicate, ``checkpoint`` around a breaking
function, nested ``vmap``/``grad`` and forward-mode dual numbers. Each is written afresh over one tensor.
"""

from __future__ import annotations

import io

import torch
import torch.utils.checkpoint
from torch._higher_order_ops.wrap import wrap

_SINK = io.StringIO()
_GLOBAL_NUM = 3.0
_GLOBAL_LIST = []


class _Holder:
    pass


_HELD = _Holder()
_LINEAR = torch.nn.Linear(3, 3)


# -- wrap: side effects in the body ---------------------------------------------------------------------------
def c_dth_wrap_mutates_global_num(x):
    global _GLOBAL_NUM
    _GLOBAL_NUM = 3.0

    def g(t):
        global _GLOBAL_NUM
        _GLOBAL_NUM = _GLOBAL_NUM + 1
        return t + _GLOBAL_NUM

    y = wrap(g, x)
    return y + _GLOBAL_NUM, _GLOBAL_NUM


def c_dth_wrap_appends_global_list(x):
    _GLOBAL_LIST.clear()

    def g(t):
        _GLOBAL_LIST.append(t + 1)
        return _GLOBAL_LIST[-1]

    y = wrap(g, x)
    return y + _GLOBAL_LIST[-1], len(_GLOBAL_LIST)


def c_dth_wrap_mutates_nonlocal(x):
    val = 1

    def g(t):
        nonlocal val
        val += 1
        return t + val

    y = wrap(g, x)
    return y + val


def c_dth_wrap_sets_attr_on_local_object(x):
    obj = _Holder()
    obj.val = 3

    def g(t):
        obj.val = t.dim()
        return t.clone()

    y = wrap(g, x)
    return y + obj.val


def c_dth_wrap_sets_attr_on_global_object(x):
    def g(t):
        _HELD.foo = t + 1
        return t.clone()

    y = wrap(g, x)
    return y + _HELD.foo


def c_dth_wrap_appends_nonlocal_list(x):
    made = []

    def f(t):
        made.append(t + 1)
        return t

    wrap(f, x)
    return made[0]


def c_dth_wrap_local_list_in_body(x):
    def f(t):
        local = []
        local.append(t + 1)
        return local[0]

    return wrap(f, x)


# -- wrap: arguments and results ---------------------------------------------------------------------------------
def c_dth_wrap_keyword_only_default_branch(x):
    def fn(*, a, b, c=None):
        if c is None:
            return a * 2 + b
        return 2 * a

    return wrap(fn, a=x, b=torch.outer(x, x)), wrap(fn, a=x, b=x, c=8)


def c_dth_wrap_int_keyword(x):
    return wrap(lambda a, b: a + b, x, b=8)


def c_dth_wrap_mixed_constants_output(x):
    return wrap(lambda t: [1, torch.sin(t), 2.0], x)


def c_dth_wrap_nested_tuple_unpacked(x):
    ((a, b),) = wrap(lambda t: ((t.sin(), t.cos()),), x)
    return a + b


def c_dth_wrap_dict_in_list_output(x):
    return wrap(lambda t: [{"a": -t}], x)


def c_dth_wrap_loops_over_list_args(x):
    def inner(first, second):
        out = []
        for t in first:
            out.append(t + 1)
        for t in second:
            out.append(t + 1)
        return out

    return wrap(inner, [x], (x.sin(),))


def c_dth_wrap_module_in_nested_wrap(x):
    def gn(t):
        return torch.cos(t) + wrap(_LINEAR, t)

    return wrap(gn, torch.outer(x, x))


def c_dth_wrap_breaks_in_body(x):
    def inner(t):
        y = t.sin()
        print("break", file=_SINK)
        return y.sin()

    t = x.clone()
    return wrap(inner, t).clone()


def c_dth_wrap_tensor_made_outside_body(x):
    k = torch.tensor(1.0)
    return wrap(lambda t: t + k, x)


# -- map, cond ----------------------------------------------------------------------------------------------------
def c_dth_map_multiple_results_and_pytree(x):
    from functorch.experimental.control_flow import map as cf_map

    rows = torch.outer(x, x + 1)
    pair = cf_map(lambda r: (r.sin(), r.cos()), rows)
    tree = cf_map(lambda r: (r.clone(), [[r.clone()]], {"a": r.clone()}), rows)
    return pair, tree


def c_dth_map_size_extra_argument(x):
    from functorch.experimental.control_flow import map as cf_map

    rows = x[:, None]
    return cf_map(lambda r, n: torch.sin(r + n), rows, x.size(0))


def c_dth_cond_no_operands(x):
    def true_fn():
        return torch.sin(x)

    def false_fn():
        return torch.cos(x)

    a = torch.cond(x.sum() > 0, true_fn, false_fn, ())
    b = torch.cond(x.sum() > 0, lambda: torch.ones(3), lambda: torch.ones(3).sin())
    return a, b


def c_dth_cond_constant_predicate(x):
    def true_fn(t):
        return t

    def false_fn(t):
        return -t

    return torch.cond(True, true_fn, false_fn, [x]), torch.cond(False, true_fn, false_fn, [x])


def c_dth_cond_nested_in_branch(x):
    def true_fn(p, t, u):
        return t + u

    def false_fn(p, t, u):
        return torch.cond(p, lambda a, b: a.sin() - b.cos(), lambda a, b: a.cos() - b.sin(), [t, u])

    return torch.cond(x.sum() < 0, true_fn, false_fn, [x.sum() > 100, x, x + 1])


def c_dth_cond_branch_returns_input(x):
    # eager refuses a branch whose result aliases an input (and one returning None): the call raises
    try:
        torch.cond(x.sum() > 0, lambda t: t, lambda t: t.view(-1), (x,))
        refused = None
    except Exception as e:
        refused = type(e).__name__
    return x + 1, refused


def c_dth_map_body_returns_its_slice(x):
    from functorch.experimental.control_flow import map as cf_map

    try:
        cf_map(lambda r: r, torch.outer(x, x))
        refused = None
    except Exception as e:
        refused = type(e).__name__
    return x + 1, refused


def c_dth_while_loop_swaps_carried(x):
    from torch._higher_order_ops.while_loop import while_loop

    try:
        while_loop(lambda i, a, b: i < 3, lambda i, a, b: (i + 1, b, a), (0, x, x + 1))
        refused = None
    except Exception as e:
        refused = type(e).__name__
    return x + 1, refused


# -- checkpoint, functorch ------------------------------------------------------------------------------------------
def c_dth_checkpoint_breaking_function(x):
    w = torch.ones(3, 3, requires_grad=True)

    def gn(a, b):
        print("break", file=_SINK)
        return torch.sigmoid(torch.matmul(a, b))

    out = torch.cos(torch.utils.checkpoint.checkpoint(gn, torch.sin(x[None]), w, use_reentrant=False))
    return out.detach()


def c_dth_checkpoint_reentrant_kwargs(x):
    w = torch.ones(3, 3, requires_grad=True)

    def gn(a, b):
        return torch.sigmoid(torch.matmul(a, b))

    out = torch.utils.checkpoint.checkpoint(gn, torch.sin(x[None]), w, use_reentrant=True, preserve_rng_state=False)
    return out.detach()


def c_dth_vmap_of_vmap_grad(x):
    def g(row):
        return torch.vmap(torch.func.grad(torch.sin))(row)

    return torch.vmap(g)(torch.outer(x, x + 1))


def c_dth_dual_level(x):
    fw = torch.autograd.forward_ad
    with fw.dual_level():
        dual = fw.make_dual(x[:2], torch.ones(2))
        out = dual.sin()
        primal, tangent = fw.unpack_dual(out)
    return primal, tangent


def c_dth_grad_of_sum_scalar(x):
    return torch.func.grad(torch.sin)(x.sum())


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
