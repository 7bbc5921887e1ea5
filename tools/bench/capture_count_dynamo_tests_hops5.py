"""Higher-order operators modelled on PyTorch's test/dynamo/test_higher_order_ops.py and
test/functorch/test_control_flow.py, for ``capture_count.py --only dynamo_tests_hops5``: ``hints_wrapper``,
``scan``, ``associative_scan`` (its generic mode, a ``vmap`` recursion), ``torch.compiler.nested_compile_region``
(``invoke_subgraph``), and the Python-level patterns of their bodies and of ``wrap``'s: closures, values made
in an outer body, globals, modules' parameters, pytree and constant results, nested operators, side effects.
Each is written afresh over one tensor.
"""

from __future__ import annotations

import numpy as np
import torch
from torch._higher_order_ops.associative_scan import associative_scan
from torch._higher_order_ops.hints_wrap import hints_wrapper
from torch._higher_order_ops.scan import scan
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap

_GLOBAL_NUM = 2.5
_GLOBAL_T = torch.tensor([0.5, -1.0, 2.0])
_LOG: list = []
_KEPT: list = []
_LIN = torch.nn.Linear(3, 3)
torch.nn.init.constant_(_LIN.weight, 0.25)
torch.nn.init.constant_(_LIN.bias, 0.5)


@torch.compiler.nested_compile_region
def _region(y):
    return y.cos() * 2


@torch.compiler.nested_compile_region
def _region_pair(y, z):
    return y + z, y * z


@torch.compiler.nested_compile_region
def _region_outer(y):
    return _region(y) + 1


@torch.compiler.nested_compile_region
def _region_logs(y):
    _LOG.append(1)
    return y + 1


# -- hints_wrapper ----------------------------------------------------------------------------------------
def c_hops5_hints_basic(x):
    def body(x):
        return x.sin() + 1
    return hints_wrapper(body, (x,), {}, hints={"outer_body": True})


def c_hops5_hints_closure(x):
    y = x * 2

    def body(x):
        return x + y, x - y
    a, b = hints_wrapper(body, (x,), {}, hints={"inner": 1, "name": "n"})
    return a * b


def c_hops5_hints_nested(x):
    def inner(x):
        return x.relu()

    def outer(x):
        return hints_wrapper(inner, (x * 3,), {}, hints={"inner_body": True}) - 1
    return hints_wrapper(outer, (x,), {}, hints={"outer_body": True})


def c_hops5_hints_int_arg(x):
    def body(x, n):
        return x * n
    return hints_wrapper(body, (x, 4), {}, hints={"k": 1.5})


def c_hops5_hints_kwargs_refused(x):
    def body(x, n=1):
        return x * n
    try:
        return hints_wrapper(body, (x,), {"n": 2}, hints={})
    except RuntimeError:
        return x - 1


# -- scan ---------------------------------------------------------------------------------------------------
def c_hops5_scan_basic(x):
    def comb(c, xs):
        return c + xs, (c * xs).clone()
    return scan(comb, torch.zeros(3), x.reshape(1, 3).expand(4, 3) + 0)


def c_hops5_scan_cumsum_1d(x):
    def comb(c, xs):
        nxt = c + xs
        return nxt, nxt.clone()
    last, ys = scan(comb, torch.zeros(()), x)
    return last, ys


def c_hops5_scan_closure(x):
    w = x + 1

    def comb(c, xs):
        return c * 0.5 + xs * w, (c - w).clone()
    return scan(comb, torch.ones(3), torch.stack([x, x * 2, x * 3]))


def c_hops5_scan_pytree(x):
    def comb(c, xs):
        a, b = c
        return (a + xs["u"], b * 2), {"s": (a * xs["v"]).clone()}
    xs = {"u": torch.stack([x, x + 1]), "v": torch.stack([x * 2, x - 1])}
    return scan(comb, (torch.zeros(3), torch.ones(3)), xs)


def c_hops5_scan_reverse_dim(x):
    def comb(c, xs):
        return c + xs, (c + 2 * xs).clone()
    xs = torch.stack([x, x * 2, x + 5], dim=1)
    return scan(comb, torch.zeros(3), xs, dim=1, reverse=True)


def c_hops5_scan_module(x):
    def comb(c, xs):
        return _LIN(c) + xs, c.sum().reshape(1).clone()
    return scan(comb, torch.zeros(3), torch.stack([x, -x]))


def c_hops5_scan_aliased_result(x):
    def comb(c, xs):
        return c + xs, c
    try:
        return scan(comb, torch.zeros(3), torch.stack([x, x]))
    except Exception:
        return x * 7


# -- associative_scan -----------------------------------------------------------------------------------------
def c_hops5_ascan_generic(x):
    return associative_scan(lambda a, b: a + b, x.reshape(3, 1).expand(3, 2) + 0, dim=0, combine_mode="generic")


def c_hops5_ascan_generic_odd(x):
    xs = torch.cat([x, x + 1, x * 2])
    return associative_scan(lambda a, b: a + b.sin(), xs, dim=0, combine_mode="generic")


def c_hops5_ascan_generic_tuple(x):
    def comb(a, b):
        return (a[0] + b[0], a[1] * b[1])
    return associative_scan(comb, (x, x + 1), dim=0, combine_mode="generic")


def c_hops5_ascan_generic_reverse(x):
    return associative_scan(torch.maximum, torch.stack([x, -x, x * 2, x - 3]), dim=0, reverse=True,
                            combine_mode="generic")


def c_hops5_vmap_empty(x):
    return torch.vmap(lambda t: t * 2 + 1)(x[:0].reshape(0, 3))


# -- nested_compile_region --------------------------------------------------------------------------------
def c_hops5_region_twice(x):
    @torch.compiler.nested_compile_region
    def g(y):
        return y.cos() * 2
    return g(x) + g(x + 1)


def c_hops5_region_global(x):
    return _region(x) - _region(x * 2)


def c_hops5_region_pair(x):
    a, b = _region_pair(x, x + 1)
    c, d = _region_pair(a, b)
    return c - d


def c_hops5_region_nested(x):
    return _region_outer(x) * _region_outer(x + 1)


def c_hops5_region_shapes_differ(x):
    return _region(x).sum() + _region(x.reshape(3, 1)).sum()


def c_hops5_region_kwargs(x):
    @torch.compiler.nested_compile_region
    def g(y, *, scale):
        return y * scale
    return g(x, scale=x + 1)


def c_hops5_region_side_effect(x):
    _LOG.clear()
    out = _region_logs(x) + _region_logs(x)
    return out, len(_LOG)


def c_hops5_region_returned(x):
    @torch.compiler.nested_compile_region
    def g(y):
        return y + 3
    _KEPT[:] = [g]  # the marked function outlives the frame
    return g(x), callable(_KEPT[0])


def c_hops5_region_module(x):
    @torch.compiler.nested_compile_region
    def g(y):
        return _LIN(y).relu()
    return g(x) + g(x)


# -- wrap: bodies' closures, globals, results -----------------------------------------------------------------
def c_hops5_wrap_value_from_outer_body(x):
    def inner(x, y):
        z = x + y
        return wrap(lambda x: wrap(lambda x: x + z, x), x)
    return wrap(inner, x, x * 2)


def c_hops5_wrap_global_num(x):
    return wrap(lambda x: x + _GLOBAL_NUM, x)


def c_hops5_wrap_global_tensor(x):
    return wrap(lambda x: x * _GLOBAL_T, x)


def c_hops5_wrap_numpy_number(x):
    y = np.float32(1.5)
    return wrap(lambda x: x + y, x)


def c_hops5_wrap_tensor_constant(x):
    y = torch.tensor(1.0)
    return wrap(lambda x: x + y, x)


def c_hops5_wrap_module(x):
    return wrap(lambda x: _LIN(x), x)


def c_hops5_wrap_module_bias(x):
    y = _LIN(x)
    return wrap(lambda y: y - _LIN.bias, y)


def c_hops5_wrap_list_output(x):
    return wrap(lambda x: [torch.sin(x), torch.cos(x)], x)


def c_hops5_wrap_constants_in_output(x):
    return wrap(lambda x: [1, torch.sin(x), 2.0], x)


def c_hops5_wrap_nested_tuple_output(x):
    return wrap(lambda x: ((x.sin(), x.cos()),), x)


def c_hops5_wrap_dict_output(x):
    return wrap(lambda x: [{"a": -x}], x)


def c_hops5_wrap_none_output(x):
    return wrap(lambda x: (x + 1, None), x)


def c_hops5_wrap_kwargs(x):
    def body(x, *, y, z=2):
        return x * y + z
    return wrap(body, x, y=x + 1)


def c_hops5_wrap_nonlocal_write(x):
    y = x

    def inner(x):
        nonlocal y
        y = x + 1
        return x.clone()
    r = wrap(inner, x)
    return r, y


def c_hops5_wrap_global_append(x):
    _LOG.clear()

    def inner(x):
        _LOG.append(x.sum())
        return x * 2
    r = wrap(inner, x)
    return r, len(_LOG)


def c_hops5_wrap_make_closure(x):
    def f(x, y):
        def g(x):
            return x + y
        return g(x)
    return wrap(f, x, x * 3)


def c_hops5_wrap_inside_cond(x):
    def yes(x):
        return wrap(lambda t: t.sin(), x)

    def no(x):
        return wrap(lambda t: t.cos(), x)
    return torch.cond(x.sum() > 0, yes, no, (x,))


def c_hops5_wrap_returns_input(x):
    return wrap(lambda t: t, x) + 1


def c_hops5_cond_in_region(x):
    @torch.compiler.nested_compile_region
    def g(y):
        return torch.cond(y.sum() > 1, lambda t: t * 2, lambda t: t - 2, (y,))
    return g(x) + g(x - 5)


def c_hops5_scan_in_region(x):
    @torch.compiler.nested_compile_region
    def g(y):
        def comb(c, xs):
            return c + xs, (c * 2).clone()
        return scan(comb, torch.zeros(3), torch.stack([y, y]))
    c, ys = g(x)
    return c + ys.sum(0)


def c_hops5_map_in_hints(x):
    from functorch.experimental.control_flow import map as cf_map

    def body(x):
        return cf_map(lambda r, s: r * s, torch.stack([x, x + 1]), x)
    return hints_wrapper(body, (x,), {}, hints={"m": True})


# -- while_loop over nested carried values; operators inside scan bodies ------------------------------------------
def c_hops5_while_pytree_carried(x):
    return while_loop(lambda c: c[0] < 3, lambda c: ((c[0] + 1, c[1] * 2),), ((torch.tensor(0), x),))


def c_hops5_while_dict_carried(x):
    return while_loop(lambda i, d: i < 3, lambda i, d: (i + 1, {"a": d["a"] + 1, "b": d["b"] * d["a"]}),
                      (torch.tensor(0), {"a": x, "b": x + 1}))


def c_hops5_while_list_int_carried(x):
    return while_loop(lambda n, c: n < 4, lambda n, c: (n + 1, [c[0] + n, c[1] - 1]), (0, [x, x * 2]))


def c_hops5_scan_list_init(x):
    def comb(c, xs):
        return [c[0] + xs, c[1] * 1.5], (c[0] - xs).clone()
    return scan(comb, [torch.zeros(()), torch.ones(())], x)


def c_hops5_scan_nested_scan(x):
    def inner(c, xs):
        return c + xs, (c * 2).clone()

    def outer(c, row):
        c2, ys = scan(inner, c, row)
        return c2, ys.sum().reshape(1)
    return scan(outer, torch.zeros(()), torch.stack([x, x + 1]))


def c_hops5_cond_in_scan(x):
    def comb(c, xs):
        n = torch.cond(xs > 1, lambda a, b: a + b, lambda a, b: a - b, (c, xs))
        return n, n.clone()
    return scan(comb, torch.zeros(()), x)


def c_hops5_region_in_scan(x):
    @torch.compiler.nested_compile_region
    def g(a, b):
        return a * 0.5 + b

    def comb(c, xs):
        n = g(c, xs)
        return n, n.clone()
    return scan(comb, torch.zeros(()), x)


def c_hops5_ascan_generic_dim1_closure(x):
    w = x.sum()
    return associative_scan(lambda a, b: a + b * w, torch.stack([x, x * 2]), dim=1, combine_mode="generic")


def c_hops5_region_module_object(x):
    g = torch.compiler.nested_compile_region(_LIN)
    return g(x) + g(x * 2)



# -- nested_compile_region bodies that are no sub-graph: eager's plain call -----------------------------------------
def c_hops5_region_buffer_update(x):
    bn = torch.nn.BatchNorm1d(3)
    g = torch.compiler.nested_compile_region(lambda t: bn(t))
    out = g(torch.stack([x, x * 2]))
    return out, bn.running_mean


def c_hops5_region_prints(x):
    @torch.compiler.nested_compile_region
    def g(t):
        print("region")
        return t + 1
    return g(x) * g(x)


def c_hops5_region_under_vmap(x):
    return torch.vmap(_region)(x.reshape(3, 1))


def c_hops5_region_under_grad(x):
    return torch.func.grad(lambda t: _region(t).sum())(x)


def c_hops5_region_returns_input(x):
    @torch.compiler.nested_compile_region
    def g(t):
        return t
    return g(x) + 1


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
