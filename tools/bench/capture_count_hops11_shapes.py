"""Higher-order operators' functions returning and taking Python structures beyond plain tuples, lists and dicts,
and bodies using Python control structures, after the ideas of PyTorch's split test_higher_order_ops.py, for
``capture_count.py --only hops11``: named tuples, ``OrderedDict``, nested empty containers, ``try``/``except``,
comprehensions and generators inside bodies. Each is written afresh over one tensor.
"""

from __future__ import annotations

import collections
import dataclasses

import torch
from torch._higher_order_ops.map import map as hop_map
from torch._higher_order_ops.while_loop import while_loop
from torch._higher_order_ops.wrap import wrap
from torch.utils.checkpoint import checkpoint

_Pair = collections.namedtuple("_Pair", ["a", "b"])


def c_h11s_wrap_namedtuple_result(x):
    out = wrap(lambda t: _Pair(t.sin(), t.cos()), x)
    return out.a + out.b, type(out).__name__


def c_h11s_wrap_namedtuple_argument(x):
    return wrap(lambda p: p.a * p.b, _Pair(x, x + 1))


def c_h11s_wrap_ordered_dict_result(x):
    out = wrap(lambda t: collections.OrderedDict([("s", t.sin()), ("c", t.cos())]), x)
    return out["s"] - out["c"], list(out)


def c_h11s_wrap_empty_containers_in_result(x):
    a, b, c = wrap(lambda t: (t * 2, [], {}), x)
    return a, b, c


def c_h11s_wrap_try_except_in_body(x):
    def body(t):
        try:
            return t.reshape(2, 2)
        except RuntimeError:
            return t * 5
    return wrap(body, x)


def c_h11s_wrap_comprehension_and_generator(x):
    def body(t):
        parts = [t * i for i in range(1, 4)]
        total = sum(p.sum() for p in parts)
        return torch.stack(parts) / total
    return wrap(body, x)


def c_h11s_cond_namedtuple_result(x):
    out = torch.cond(x.sum() > 1, lambda t: _Pair(t + 1, t - 1), lambda t: _Pair(t * 2, t / 2), (x,))
    return out.a * out.b


def c_h11s_cond_namedtuple_operand(x):
    return torch.cond(x.sum() > 1, lambda p: p.a + p.b, lambda p: p.a - p.b, (_Pair(x, x * 3),))


def c_h11s_map_namedtuple_result(x):
    out = hop_map(lambda r: _Pair(r.sin(), r * 2), torch.stack([x, x + 1]))
    return out.a, out.b


def c_h11s_map_namedtuple_xs(x):
    return hop_map(lambda p: p.a * p.b, _Pair(torch.stack([x, x]), torch.stack([x + 1, x - 1])))


def c_h11s_while_namedtuple_carried(x):
    def cond_fn(p):
        return p.a.sum() < 20

    def body_fn(p):
        return (_Pair(p.a * 2 + 1, p.b + 1),)
    return while_loop(cond_fn, body_fn, (_Pair(x, x.clone()),))


def c_h11s_checkpoint_namedtuple_result(x):
    out = checkpoint(lambda t: _Pair(t.exp(), t.log1p()), x, use_reentrant=False)
    return out.a + out.b


def c_h11s_checkpoint_ordered_dict_argument(x):
    d = collections.OrderedDict([("u", x), ("v", x * 2)])
    return checkpoint(lambda dd: dd["u"] * dd["v"], d, use_reentrant=False)


def c_h11s_vmap_namedtuple_result(x):
    out = torch.vmap(lambda r: _Pair(r * 2, r.sum()))(torch.stack([x, x + 1]))
    return out.a, out.b, type(out).__name__


def c_h11s_grad_namedtuple_argument(x):
    g = torch.func.grad(lambda p: (p.a * p.b).sum())(_Pair(x, x + 2))
    return g.a, g.b, type(g).__name__



# -- registered pytree classes -------------------------------------------------------------------------------------
@dataclasses.dataclass
class _Point:
    u: torch.Tensor
    v: torch.Tensor


torch.utils._pytree.register_dataclass(_Point)


def c_h11s_checkpoint_registered_dataclass_result(x):
    out = checkpoint(lambda t: _Point(t.sin(), t * 3), x, use_reentrant=False)
    return out.u + out.v


def c_h11s_cond_registered_dataclass_result(x):
    out = torch.cond(x.sum() > 1, lambda t: _Point(t + 1, t - 1), lambda t: _Point(t * 2, t / 2), (x,))
    return out.u * out.v


def c_h11s_vmap_registered_dataclass_argument(x):
    return torch.vmap(lambda p: p.u * p.v.sum())(_Point(torch.stack([x, x + 1]), torch.stack([x, x * 2])))


def c_h11s_map_registered_dataclass_xs(x):
    return hop_map(lambda p: p.u - p.v, _Point(torch.stack([x, x]), torch.stack([x + 1, x - 1])))


def c_h11s_grad_registered_dataclass_argument(x):
    g = torch.func.grad(lambda p: (p.u * p.v).sum())(_Point(x, x + 2))
    return g.u, g.v



def c_h11s_jacrev_namedtuple_argument(x):
    jac = torch.func.jacrev(lambda p: p.a * p.b)(_Pair(x, x + 1))
    return jac.a, jac.b, type(jac).__name__


def c_h11s_vjp_registered_dataclass_output(x):
    out, fn = torch.func.vjp(lambda t: _Point(t.sin(), t * 2), x)
    return out.u, fn(_Point(torch.ones(3), torch.ones(3)))[0]


def c_h11s_jvp_namedtuple_primals(x):
    return torch.func.jvp(lambda p: p.a * p.b, (_Pair(x, x + 1),), (_Pair(torch.ones(3), torch.zeros(3)),))


def c_h11s_checkpoint_registered_dataclass_argument(x):
    return checkpoint(lambda p: p.u * p.v, _Point(x, x + 1), use_reentrant=False)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
