"""Issue 29's functions and misc area, for ``capture_count.py``: the first hidden suite's known break
causes, one program each (iterators in ``for``, run-time dict keys, defaultdict writes, symbolic
``range`` in enumerate/zip, sorting run-time values, ``in`` on views, ``str()`` of objects,
``int.bit_length``, ``sys.intern``, tensor attributes, logging), then builtins as PyTorch's
test_functions/test_misc/test_unspec exercise them. Run with ``--dynamic`` too (symbolic ints).
"""

from __future__ import annotations

import collections
import logging
import math
import operator
import sys
import types

import torch

_LOG = logging.getLogger("loom.bench.functions")
_LOG.addHandler(logging.NullHandler())
_LOG.propagate = False


# -- the first hidden suite's known break causes -------------------------------------------------------
def _numbers(n):
    for i in range(n):
        yield i * 2


def c_for_over_iterators(x):
    out = x
    for v in _numbers(3):
        out = out + v
    for v in iter([1, 2]):
        out = out * v
    for v in iter((3, 4)):
        out = out - v
    d = {"a": 1, "b": 2}
    for k in iter(d):
        out = out + d[k]
    for v in iter(d.values()):
        out = out + v
    for k, v in iter(d.items()):
        out = out + len(k) * v
    return out


def c_runtime_dict_keys(x):
    d = {}
    for i in range(x.shape[0]):
        d[f"k{i}"] = x[i]
    d[str(x.dim())] = x.sum()
    return sum(d.values()), sorted(d)


def c_defaultdict_writes(x):
    d = collections.defaultdict(list)
    d["a"] = [x]
    d.update({"b": [x * 2]}, c=[x * 3])
    d["a"].append(x + 1)
    return sum(sum(v) for v in d.values()), len(d)


def c_range_symbolic_enumerate_zip(x):
    n = x.shape[0]
    out = x
    for i, j in enumerate(range(n)):
        out = out + i * j
    for a, b in zip(range(n), range(1, n + 1)):
        out = out + a * b
    return out


def c_sort_runtime_values(x):
    sizes = [x.shape[0], x.dim(), 2]
    sizes.sort(reverse=True)
    return x + sizes[0], sorted([x.shape[0] + 1, 1, x.numel()]), sorted({"b": 1, "a": 2})


def c_in_views_mappingproxy(x):
    d = {"a": 1, "b": 2}
    proxy = types.MappingProxyType(d)
    hits = ("a" in d.keys()) + (2 in d.values()) + (("b", 2) in d.items()) + ("a" in proxy) + ("z" in proxy)
    return x + hits


def c_next_range_iterator(x):
    r = iter(range(x.shape[0]))
    first = next(r)
    second = next(r, -1)
    return x + first + second + next(iter(range(5, 7)))


class _Plain:
    def __init__(self, n):
        self.n = n

    def __str__(self):
        return f"Plain({self.n})"


def c_str_of_objects(x):
    return x + len(str(_Plain(3))) + len(repr(3.5)) + len(str((1, "a"))) + len(str(None))


def c_bit_length(x):
    n = x.shape[0]
    return x + n.bit_length() + (255).bit_length() + int(n).bit_length()


def c_sys_intern(x):
    name = sys.intern("weight")
    return x + (name == "weight") + len(sys.intern("bias"))


def c_tensor_attribute(x):
    y = x * 2
    y.tag = "scaled"
    y.step = 3
    return y + y.step, y.tag


def c_generator_close_in_try(x):
    gen = _numbers(4)
    out = x
    try:
        out = out + next(gen)
    finally:
        gen.close()
    return out


def c_logging_calls(x):
    _LOG.debug("shape %s", x.shape)
    _LOG.info("start")
    if _LOG.isEnabledFor(logging.DEBUG):
        x = x + 100
    return x + 1


# -- builtins -------------------------------------------------------------------------------------------
def c_isinstance_tuples_abcs(x):
    out = x
    if isinstance(x, (list, torch.Tensor)):
        out = out + 1
    if isinstance([1], collections.abc.Sequence) and isinstance({}, collections.abc.Mapping):
        out = out + 2
    if isinstance(3, (float, int)) and not isinstance("a", collections.abc.Callable):
        out = out + 4
    return out + isinstance(x.shape, tuple) + isinstance(x.shape[0], int)


class _Config:
    scale = 2

    def __init__(self):
        self.bias = 1


def c_getattr_hasattr_callable(x):
    cfg = _Config()
    out = x * getattr(cfg, "scale", 5) + getattr(cfg, "missing", 7) + getattr(cfg, "bias")  # noqa: B009 - the construct under test
    out = out + hasattr(cfg, "bias") + 10 * hasattr(cfg, "nope") + 100 * hasattr(x, "shape")
    return out + callable(cfg) + 10 * callable(torch.relu) + 100 * callable(len)


def c_divmod_round_abs(x):
    n = x.shape[0]
    q, r = divmod(n + 4, 3)
    return x * q + r + round(2.567, 2) + round(7.5) + abs(-n) + abs(x - 1).sum() + pow(n, 2)


def c_min_max_mixed(x):
    n = x.shape[0]
    return x + min(n, 2) + max(1, n, 4) + max([n, 0]) + min(x.sum(), x.max()), max(x.sum(), 1)


def c_functools_partial_reduce(x):
    import functools

    scale = functools.partial(torch.mul, other=2)
    add3 = functools.partial(lambda a, b, c: a + b + c, 1, c=3)
    return functools.reduce(lambda a, b: a * b, [x, x + 1, 2], 1) + scale(x) + add3(x)


def c_operator_module(x):
    out = operator.add(x, 1)
    out = operator.mul(out, operator.neg(2)) + operator.truediv(x, 2) + operator.floordiv(7, 2)
    getter = operator.itemgetter(0, 2)
    out = out + sum(getter([1, 2, 3])) + operator.getitem(x, 0) + operator.methodcaller("sum")(x)
    return out + operator.index(3) + operator.not_(False) + operator.contains([1, 2], 2)


def c_itertools_more(x):
    import itertools

    out = x
    for k, group in itertools.groupby([1, 1, 2, 3, 3]):
        out = out + k * len(list(group))
    out = out + sum(itertools.starmap(operator.mul, [(1, 2), (3, 4)]))
    out = out + sum(itertools.takewhile(lambda v: v < 3, [1, 2, 5, 1]))
    out = out + sum(itertools.dropwhile(lambda v: v < 3, [1, 2, 5, 1]))
    out = out + sum(itertools.compress([1, 2, 3], [True, False, True]))
    return out + len(list(itertools.combinations_with_replacement([1, 2], 2)))


def c_math_symbolic(x):
    n = x.shape[0]
    return (x + math.sqrt(n) + math.floor(n / 2) + math.ceil(n / 2) + math.log2(n + 1) + math.prod([n, 2])
            + math.gcd(n, 6) + math.isclose(1.0, 1.0) + math.pi + math.factorial(3))


def c_fstrings_format(x):
    n = x.shape[0]
    label = f"size={n:03d} {x.dtype} {'a'!r}"
    other = "{}-{:.2f}-{name}".format(n, 1.5, name="w")
    return x + len(label) + len(other) + len("%d-%s" % (n, "x"))  # noqa: UP031


def c_string_methods(x):
    name = "Layer.Weight_0"
    parts = name.lower().split(".")
    out = x + len(parts) + name.startswith("Layer") + name.endswith("0") + name.find("W")
    out = out + len(name.replace("_", "").strip()) + len("-".join(parts)) + name.count("e")
    return out + ("weight" in name.lower()) + len(name.partition(".")[2]) + name.isidentifier()


def c_closures_nonlocal(x):
    count = 0

    def bump(t):
        nonlocal count
        count += 1
        return t * count

    def make_adder(k):
        return lambda t: t + k

    out = bump(x) + bump(x)
    return make_adder(5)(out) + count


def _kw(a, b=2, *, c=3, d=None):
    return a * b + c + (0 if d is None else d)


def c_default_keyword_only(x):
    return _kw(x) + _kw(x, 3) + _kw(x, c=1) + _kw(x, b=1, d=4)


def _inner(*args, **kwargs):
    return sum(args) + sum(kwargs.values())


def _forward(*args, **kwargs):
    return _inner(*args, **kwargs) + len(args) + len(kwargs)


def c_args_kwargs_forwarding(x):
    extra = {"z": x}
    return _forward(x, 1, y=2, **extra) + _forward(*[x, x], **{"w": 3})


def c_lambdas(x):
    funcs = [lambda t, i=i: t * i for i in range(3)]
    compose = lambda f, g: lambda t: f(g(t))  # noqa: E731
    return sum(f(x) for f in funcs) + compose(torch.sin, torch.cos)(x) + (lambda *a: len(a))(1, 2)


CONSTRUCTS = [c_for_over_iterators, c_runtime_dict_keys, c_defaultdict_writes, c_range_symbolic_enumerate_zip,
              c_sort_runtime_values, c_in_views_mappingproxy, c_next_range_iterator, c_str_of_objects, c_bit_length,
              c_sys_intern, c_tensor_attribute, c_generator_close_in_try, c_logging_calls, c_isinstance_tuples_abcs,
              c_getattr_hasattr_callable, c_divmod_round_abs, c_min_max_mixed, c_functools_partial_reduce,
              c_operator_module, c_itertools_more, c_math_symbolic, c_fstrings_format, c_string_methods,
              c_closures_nonlocal, c_default_keyword_only, c_args_kwargs_forwarding, c_lambdas]
