"""The operator and functools modules, modelled on PyTorch's test/dynamo/test_functions.py (its operator and
functools parts) and test/dynamo/cpython/3_13/test_operator.py and test_functools.py, for ``capture_count.py
--only dynamo_tests_iters6``: ``itemgetter``/``attrgetter``/``methodcaller`` made in the frame and passed in,
``operator.add``/``iadd`` and friends on tensors and lists, ``reduce``, partials of partials, ``partialmethod``,
``cached_property``, ``lru_cache``d functions, ``cmp_to_key`` and ``singledispatch``. Each is written afresh
over one tensor.
"""

from __future__ import annotations

import functools
import operator
import types

import torch


# -- itemgetter / attrgetter / methodcaller -------------------------------------------------------------
def c_it6f_itemgetter_made(x):
    get = operator.itemgetter(2, 0)
    a, b = get([x, x + 1, x * 3])
    return a - b


def c_it6f_itemgetter_passed(x, get):
    return get({"w": x * 2, "b": 1.0})


c_it6f_itemgetter_passed.extra_args = lambda: (operator.itemgetter("w"),)


def c_it6f_attrgetter_dotted(x):
    obj = types.SimpleNamespace(inner=types.SimpleNamespace(scale=3.0))
    return x * operator.attrgetter("inner.scale")(obj)


def c_it6f_attrgetter_passed_many(x, get):
    a, b = get(x)
    return x.reshape(a) + b[0]


c_it6f_attrgetter_passed_many.extra_args = lambda: (operator.attrgetter("shape", "shape"),)


def c_it6f_methodcaller_made(x):
    return operator.methodcaller("mul", 4)(x)


def c_it6f_methodcaller_kwargs(x):
    return operator.methodcaller("sum", dim=0, keepdim=True)(x) + x


def c_it6f_methodcaller_passed(x, call):
    return call(x)


c_it6f_methodcaller_passed.extra_args = lambda: (operator.methodcaller("clamp", min=1.0),)


def c_it6f_sorted_by_itemgetter(x):
    rows = [(3, 1.0), (1, 2.0), (2, 4.0)]
    ordered = sorted(rows, key=operator.itemgetter(0))
    return x + ordered[0][1] * 10 + ordered[-1][1]


def c_it6f_max_by_attrgetter(x):
    items = [types.SimpleNamespace(w=2.0), types.SimpleNamespace(w=5.0)]
    return x * max(items, key=operator.attrgetter("w")).w


# -- operator functions on tensors and lists ---------------------------------------------------------------
def c_it6f_operator_add_mul_tensors(x):
    return operator.add(operator.mul(x, 2), operator.truediv(x, 4))


def c_it6f_operator_iadd_list(x):
    acc = [1]
    out = operator.iadd(acc, [2, 3])
    return x + len(acc) + (out is acc)


def c_it6f_operator_iadd_tensor_inplace(x):
    y = x.clone()
    z = operator.iadd(y, 1.0)
    return y + z + (z is y)


def c_it6f_operator_imul_list(x):
    vals = [1.0, 2.0]
    vals = operator.imul(vals, 2)
    return x + sum(vals)


def c_it6f_operator_getitem_setitem(x):
    d = {}
    operator.setitem(d, "k", x)
    operator.delitem(d, "k") if operator.contains(d, "zz") else None
    return operator.getitem(d, "k") * 2


def c_it6f_operator_neg_pow_matmul(x):
    m = x.reshape(3, 1)
    return operator.neg(operator.pow(x, 2)) + operator.matmul(m.T, m)


def c_it6f_operator_comparisons(x):
    flags = [operator.lt(1, 2), operator.ge(2, 3), operator.is_(None, None), operator.not_(0)]
    return x + sum(flags)


def c_it6f_operator_index_and_concat(x):
    parts = operator.concat([1, 2], [operator.index(3)])
    return x + sum(parts)


def c_it6f_operator_truth_tensor(x):
    return x + operator.truth(x.sum() > 1)


# -- functools.reduce ------------------------------------------------------------------------------------
def c_it6f_reduce_tensors(x):
    return functools.reduce(operator.add, [x, x * 2, x * 3])


def c_it6f_reduce_initial_lambda(x):
    return functools.reduce(lambda acc, v: acc * v, [1.0, 2.0, 3.0], x)


def c_it6f_reduce_over_generator(x):
    return functools.reduce(torch.maximum, (x * k for k in (-1, 2, 1)))


def c_it6f_reduce_empty_with_initial(x):
    return functools.reduce(operator.add, [], x + 1)


def c_it6f_reduce_empty_raises(x):
    try:
        functools.reduce(operator.add, [])
    except TypeError:
        return x - 1
    return x


# -- partial ------------------------------------------------------------------------------------------------
def c_it6f_partial_of_partial(x):
    def lin(a, b, c, scale=1.0):
        return (a * b + c) * scale

    p = functools.partial(functools.partial(lin, x), 2.0, scale=0.5)
    return p(1.0)


def c_it6f_partial_passed_in(x, p):
    return p(x)


c_it6f_partial_passed_in.extra_args = lambda: (functools.partial(torch.clamp, min=1.0, max=1.5),)


def c_it6f_partial_keyword_override(x):
    p = functools.partial(torch.clamp, min=0.5, max=1.5)
    return p(x, max=2.5)


def c_it6f_partial_attrs(x):
    p = functools.partial(operator.mul, 3)
    return x * len(p.args) + p.func(x, 1) + len(p.keywords)


class _Scaler:
    def __init__(self, k):
        self.k = k

    def apply(self, t, bias):
        return t * self.k + bias

    shifted = functools.partialmethod(apply, bias=10.0)


def c_it6f_partialmethod(x):
    return _Scaler(2.0).shifted(x)


# -- cached_property and lru_cache ------------------------------------------------------------------------------
class _Lazy:
    built = 0

    def __init__(self, base):
        self.base = base

    @functools.cached_property
    def doubled(self):
        type(self).built += 1
        return self.base * 2


def c_it6f_cached_property_twice(x):
    obj = _Lazy(x)
    return obj.doubled + obj.doubled + type(obj).built * 0


@functools.lru_cache(maxsize=16)
def _table(n):
    return tuple(range(n))


def c_it6f_lru_cached_call(x):
    return x + sum(_table(4)) + len(_table(2))


@functools.lru_cache(maxsize=8)
def _weights(n):
    return [float(i) for i in range(n)]


def c_it6f_lru_cached_list(x):
    w = _weights(3)
    return x * torch.tensor(w)


@functools.cache
def _factor(k):
    return k * 1.5


def c_it6f_functools_cache(x):
    return x * _factor(2) + _factor(2)


# -- cmp_to_key, singledispatch, wraps, total_ordering ----------------------------------------------------------
def c_it6f_cmp_to_key_sorted(x):
    def by_abs(a, b):
        return (abs(a) > abs(b)) - (abs(a) < abs(b))

    vals = sorted([-3.0, 1.0, -2.0], key=functools.cmp_to_key(by_abs))
    return x + vals[0] * 100 + vals[-1]


def c_it6f_cmp_to_key_list_sort(x):
    vals = [(2, "b"), (1, "a"), (2, "a")]
    vals.sort(key=functools.cmp_to_key(lambda p, q: p[0] - q[0]))
    return x + vals[0][0] + 10 * vals[-1][0]


@functools.singledispatch
def _describe(v):
    return 0.0


@_describe.register
def _(v: int):
    return 1.0


@_describe.register(list)
def _(v):
    return float(len(v))


def c_it6f_singledispatch(x):
    return x + _describe(3) + _describe([1, 2, 3]) + _describe("s")


def c_it6f_wraps_keeps_name(x):
    def inner(t):
        return t + 1

    @functools.wraps(inner)
    def outer(t):
        return inner(t) * 2

    return outer(x) + len(outer.__name__) + (outer.__wrapped__ is inner)


@functools.total_ordering
class _Version:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n

    def __lt__(self, other):
        return self.n < other.n


def c_it6f_total_ordering(x):
    a, b = _Version(1), _Version(2)
    return x + (a <= b) + (b > a) + (a >= b)


CONSTRUCTS = [
    c_it6f_itemgetter_made, c_it6f_itemgetter_passed, c_it6f_attrgetter_dotted,
    c_it6f_attrgetter_passed_many, c_it6f_methodcaller_made, c_it6f_methodcaller_kwargs, c_it6f_methodcaller_passed,
    c_it6f_sorted_by_itemgetter, c_it6f_max_by_attrgetter,
    c_it6f_operator_add_mul_tensors, c_it6f_operator_iadd_list, c_it6f_operator_iadd_tensor_inplace,
    c_it6f_operator_imul_list, c_it6f_operator_getitem_setitem, c_it6f_operator_neg_pow_matmul,
    c_it6f_operator_comparisons, c_it6f_operator_index_and_concat, c_it6f_operator_truth_tensor,
    c_it6f_reduce_tensors, c_it6f_reduce_initial_lambda, c_it6f_reduce_over_generator,
    c_it6f_reduce_empty_with_initial, c_it6f_reduce_empty_raises,
    c_it6f_partial_of_partial, c_it6f_partial_passed_in, c_it6f_partial_keyword_override, c_it6f_partial_attrs,
    c_it6f_partialmethod,
    c_it6f_cached_property_twice, c_it6f_lru_cached_call, c_it6f_lru_cached_list, c_it6f_functools_cache,
    c_it6f_cmp_to_key_sorted, c_it6f_cmp_to_key_list_sort, c_it6f_singledispatch, c_it6f_wraps_keeps_name,
    c_it6f_total_ordering,
]
