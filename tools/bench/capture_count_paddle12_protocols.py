"""Protocol programs beside Paddle's SOT tests for ``capture_count.py --only paddle12``: user classes with
operator dunders around tensors (test_14_operators' idea on user objects), explicit dunder calls on tensors,
dtype information, old-style and ``format`` formatting, generator ``throw``/``close``, ``math`` helpers.
"""

from __future__ import annotations

import collections
import itertools
import math
import operator

import torch


class _Vec:
    def __init__(self, t):
        self.t = t

    def __iadd__(self, other):
        self.t = self.t + (other.t if isinstance(other, _Vec) else other)
        return self

    def __matmul__(self, other):
        return (self.t * other.t).sum()

    def __rmul__(self, k):
        return _Vec(self.t * k)

    def __neg__(self):
        return _Vec(-self.t)

    def __abs__(self):
        return self.t.abs().sum()

    def __len__(self):
        return self.t.shape[0]

    def __contains__(self, v):
        return v < len(self)

    def __format__(self, spec):
        return f"Vec[{len(self):{spec}}]"


def c_p12p_user_operator_dunders(x):
    v = _Vec(x)
    v += 1
    v += _Vec(x)
    w = 2 * v
    n = -w
    return v @ w, abs(n), len(v), 2 in v, 5 in v, f"{v:>3}", format(v, "02d")


class _Pos:
    def __init__(self, i):
        self.i = i

    def __index__(self):
        return self.i


def c_p12p_user_index_object(x):
    items = [10, 20, 30]
    return x + items[_Pos(1)], [1, 2, 3, 4][_Pos(1):_Pos(3)], operator.index(_Pos(2)), x[_Pos(2)]


def c_p12p_explicit_tensor_dunders(x):
    return x.__len__(), x.__getitem__(0), x.__add__(1), x.__radd__(2), x.__mul__(x), x.__neg__()


def c_p12p_dtype_information(x):
    fi = torch.finfo(x.dtype)
    ii = torch.iinfo(torch.int8)
    return (x + fi.eps, ii.max, str(x.dtype), x.dtype.is_floating_point, x.dtype.itemsize,
            getattr(torch, "float64") is torch.float64)  # noqa: B009


def c_p12p_percent_and_format(x):
    n = x.shape[0]
    return (x + n, "%d-%s" % (n, "a"), "%(k)s=%(v)03d" % {"k": "n", "v": n}, format(3.14159, ".2f"),  # noqa: UP031
            format(n, "03d"), "x".join(map(str, x.reshape(1, 3).shape)))


def _gen_with_cleanup(log):
    try:
        while True:
            try:
                yield len(log)
            except ValueError:
                log.append("caught")
    finally:
        log.append("closed")


def c_p12p_generator_throw_and_close(x):
    log = []
    g = _gen_with_cleanup(log)
    a = next(g)
    b = g.throw(ValueError)
    g.close()
    return x + a + b, log


def _inner_gen(v):
    yield v
    yield v + 1
    return v * 10


def _outer_gen(v):
    got = yield from _inner_gen(v)
    yield got


def c_p12p_yield_from_return_value(x):
    return list(_outer_gen(x))


def c_p12p_math_helpers(x):
    return (x + math.prod([1, 2, 3]) + math.comb(5, 2) + math.gcd(12, 18), math.isclose(0.1 + 0.2, 0.3),
            math.dist((0, 0), (3, 4)), math.fsum([0.1] * 10), math.copysign(2, -1))


def c_p12p_sorted_items_by_value(x):
    scores = {"a": 3, "b": 1, "c": 2}
    ranked = sorted(scores.items(), key=operator.itemgetter(1), reverse=True)
    words = ["ccc", "a", "bb"]
    words.sort(key=len)
    return x * ranked[0][1], ranked, words


def c_p12p_deque_maxlen_rotate(x):
    d = collections.deque(maxlen=3)
    for t in (x, x + 1, x + 2, x + 3):
        d.append(t)
    d.rotate(1)
    return list(d), d.maxlen, d[0] - d[-1]


def c_p12p_itertools_accumulate_pairwise(x):
    acc = list(itertools.accumulate([1, 2, 3], initial=10))
    pairs = list(itertools.pairwise([x, x + 1, x + 2]))
    return acc, [b - a for a, b in pairs], list(itertools.starmap(pow, [(2, 3), (3, 2)]))


def c_p12p_range_object_methods(x):
    r = range(2, 20, 3)
    return x + r.index(8) + r.count(5), r[::2][1], r[-1], len(r[1:4]), 11 in r, slice(None, None, -1).indices(4)


class _IntLike(int):
    def __new__(cls, v, tag):
        obj = super().__new__(cls, v)
        obj.tag = tag
        return obj


def c_p12p_int_subclass_new(x):
    a = _IntLike(3, "three")
    return x + a, a.tag, a + 1, isinstance(a, int)


class _Tagged(tuple):
    def total(self):
        return sum(self)


def c_p12p_tuple_subclass_method(x):
    t = _Tagged((1, 2, 3))
    return x + t.total(), t[1:], len(t), type(t).__name__


def c_p12p_object_new_then_set(x):
    o = object.__new__(_Pos)
    o.i = 2
    return x + o.i, [5, 6, 7][o]


def c_p12p_set_grad_enabled_calls(x):
    prev = torch.is_grad_enabled()
    torch.set_grad_enabled(False)
    y = x * 2
    torch.set_grad_enabled(prev)
    z = x * 3
    return y.requires_grad, z.requires_grad, y + z


def c_p12p_enable_grad_inside_no_grad(x):
    w = torch.ones(3, requires_grad=True)
    with torch.no_grad():
        a = w * x
        with torch.enable_grad():
            b = w * x
    return a.requires_grad, b.requires_grad, a + b


class _Model(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.Parameter(torch.arange(3.0))

    @torch.no_grad()
    def frozen(self, v):
        return v * self.w

    def forward(self, v):
        return self.frozen(v) + v * self.w


def c_p12p_no_grad_decorated_method(x, m):
    out = m(x)
    return out, out.requires_grad


c_p12p_no_grad_decorated_method.extra_args = lambda: (_Model(),)


def c_p12p_requires_grad_on_made_tensor(x):
    w = torch.zeros(3).requires_grad_()
    y = (w + x).sum()
    return y, y.requires_grad, w.is_leaf, y.grad_fn is not None


def c_p12p_string_methods_on_names(x):
    name = "layer_1.weight"
    prefix, _, leaf = name.rpartition(".")
    return (x + int(prefix.split("_")[-1]), leaf.capitalize(), name.startswith(("layer", "block")),
            name.replace("_", "-").upper(), name.center(16, "*"), "a,b,,c".split(",", 2))


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
