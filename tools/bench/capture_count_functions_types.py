"""Issue 29's functions and misc area, part two, for ``capture_count.py``: dataclasses, enums,
``typing.NamedTuple``, ``inspect.signature`` (and ``Signature.bind`` with tensors), ``__slots__``, a live
``mappingproxy``, ``lru_cache``d functions, methods and class attributes,
recursion, ``type()``/``id()``/``hash()``, ``zip(strict=)``, ``any``/``all``, ``sum(start=)``, ``map``/``filter``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import inspect
import types
import typing

import torch


@dataclasses.dataclass
class _Options:
    scale: float = 2.0
    shift: int = 1
    names: list = dataclasses.field(default_factory=list)


def c_dataclass(x):
    opts = _Options(shift=3)
    opts.names.append("a")
    copy = dataclasses.replace(opts, scale=0.5)
    fields = [f.name for f in dataclasses.fields(opts)]
    return x * opts.scale + copy.scale + len(fields) + len(dataclasses.asdict(opts)) + opts.shift, opts == copy


@dataclasses.dataclass(frozen=True)
class _Frozen:
    a: int
    b: int = 2


def c_dataclass_frozen(x):
    f = _Frozen(1)
    return x + f.a + f.b + (f == _Frozen(1, 2)) + len(dataclasses.astuple(f))


class _Mode(enum.Enum):
    TRAIN = 1
    EVAL = 2


class _Flag(enum.IntEnum):
    LOW = 1
    HIGH = 5


def c_enum(x):
    mode = _Mode.EVAL
    out = x + mode.value + (mode is _Mode.EVAL) + (mode == _Mode.TRAIN) + _Flag.HIGH
    out = out + _Mode(1).value + _Mode["TRAIN"].value + len(mode.name) + len(list(_Mode))
    return out + (_Flag.LOW < _Flag.HIGH)


class _Pair(typing.NamedTuple):
    first: torch.Tensor
    second: int = 4


def c_typing_namedtuple(x):
    p = _Pair(x)
    a, b = p
    q = p._replace(second=1)
    return a + b + q.second + p.first.sum() + len(p) + p[1], q


def _sig_target(a, b=1, *rest, c, **kw):
    return a


def c_inspect_signature(x):
    sig = inspect.signature(_sig_target)
    names = list(sig.parameters)
    defaults = sum(1 for p in sig.parameters.values() if p.default is not inspect.Parameter.empty)
    bound = sig.bind(x, 2, c=3)
    return x + len(names) + defaults + len(bound.arguments), names


@functools.lru_cache(maxsize=None)  # noqa: UP033 - the construct under test
def _table(n):
    return tuple(range(n))


@functools.cache
def _square(n):
    return n * n


def c_lru_cached_functions(x):
    return x + sum(_table(4)) + _square(3) + _square(3)


class _Counter:
    total = 0

    def __init__(self, step):
        self.step = step

    def add(self, t):
        return t + self.step

    @classmethod
    def make(cls, step):
        return cls(step)

    @staticmethod
    def twice(t):
        return t * 2

    @property
    def double_step(self):
        return self.step * 2


def c_methods_properties(x):
    c = _Counter.make(3)
    bound = c.add
    return _Counter.twice(bound(x)) + c.double_step + getattr(c, "add")(x) + _Counter.total  # noqa: B009


def _fact(n):
    return 1 if n <= 1 else n * _fact(n - 1)


def c_recursion(x):
    return x * _fact(4)


def c_type_id_hash(x):
    out = x + (type(x) is torch.Tensor) + (type(3) is int) + (type([]) == list)  # noqa: UP003, E721
    out = out + (hash(3) == hash(3)) + (hash("a") == hash("a")) + (id(x) == id(x))
    return out + (type(x).__name__ == "Tensor")


def c_any_all_sum_map_filter(x):
    vals = [1, 2, 3, 0]
    out = x + any(vals) + all(vals) + sum(vals, 10) + sum(map(lambda v: v * 2, vals))
    out = out + len(list(filter(None, vals))) + sum(filter(lambda v: v > 1, vals))
    return out + sum(a * b for a, b in zip(vals, reversed(vals), strict=True))


def c_symbolic_int_arith(x):
    n = x.shape[0]
    m = n * 2 + 1
    out = x.new_zeros(m)[:n] + x
    return out + (n // 2) + (n % 2) + (-n) + (n ** 2) + int(n / 2) + float(n) + (n > 2) + (n == 3)


def c_tensor_python_scalars(x):
    s = x.sum().item()
    return x + int(s) + float(s) + bool(s) + round(s) + abs(-s) + max(s, 1.0)


def c_unspec_int_argument(x, n):
    return x * n + n


c_unspec_int_argument.extra_args = lambda: (4,)


def c_unspec_float_argument(x, f):
    return x * f + math_floor(f)


def math_floor(f):
    import math

    return math.floor(f)


c_unspec_float_argument.extra_args = lambda: (2.5,)


def c_global_mutation(x):
    global _LAST_SIZE  # the same value on every call: the runner's eager and loom runs see the same global
    _LAST_SIZE = x.shape[0] + 1
    return x + _LAST_SIZE


_LAST_SIZE = 0


def c_nested_functions_defaults(x):
    def scale(t, factor=2, *, power=1):
        return (t * factor) ** power

    def apply(fn, *args, **kwargs):
        return fn(*args, **kwargs)

    return apply(scale, x) + apply(scale, x, 3, power=2) + apply(scale, t=x)


def c_star_unpacking(x):
    first, *middle, last = [1, 2, 3, 4]
    a, (b, c) = x, (1, 2)
    merged = {**{"a": 1}, **{"b": 2}}
    return a + first + sum(middle) + last + b + c + len(merged) + len([*middle, *merged])


def c_chained_comparisons(x):
    n = x.shape[0]
    return x + (0 < n < 5) + (1 <= n <= 2) + (n is not None) + ([1] == [1]) + ((1, 2) < (1, 3))


def c_signature_bind_defaults(x):
    bound = inspect.signature(_sig_target).bind(x, c=x * 2)
    bound.apply_defaults()
    return bound.args[0] + bound.kwargs["c"] + bound.arguments["b"], list(bound.arguments)


class _Slotted:
    __slots__ = ("extra", "value")

    def __init__(self, value):
        self.value = value


def c_slots_object(x):
    obj = _Slotted(x)
    obj.extra = 2
    missing = 0
    try:
        obj.other = 1
    except AttributeError:
        missing = 1
    return obj.value * obj.extra + missing, hasattr(obj, "__dict__"), type(obj).__name__


def c_mappingproxy_live_view(x):
    d = {"a": x}
    proxy = types.MappingProxyType(d)
    d["b"] = x * 2
    return sum(proxy.values()) + len(proxy), proxy == d, list(proxy.items())[1][1]


CONSTRUCTS = [c_dataclass, c_dataclass_frozen, c_enum, c_typing_namedtuple, c_inspect_signature,
              c_lru_cached_functions, c_methods_properties, c_recursion, c_type_id_hash, c_any_all_sum_map_filter,
              c_symbolic_int_arith, c_tensor_python_scalars, c_unspec_int_argument, c_unspec_float_argument,
              c_global_mutation, c_nested_functions_defaults, c_star_unpacking, c_chained_comparisons,
              c_signature_bind_defaults, c_slots_object, c_mappingproxy_live_view]
