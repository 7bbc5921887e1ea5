"""More of the third round after Paddle's SOT tests, with torch, for ``capture_count.py --only paddle_sot3``:
dataclasses (fields, replace, asdict, frozen, default factories), namedtuples made and unpacked, functools
(partial of partial, lru_cache, wraps, cmp_to_key, cached_property, total_ordering), enums (Enum, Flag, auto,
members as keys), iteration (user iterators, iter with a sentinel, comprehensions over zip and enumerate,
range arithmetic), f-strings and str methods of tensor metadata, super() in diamonds and classmethods.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import itertools
import operator
from collections import namedtuple
from typing import NamedTuple

import torch


# -- dataclasses (test_dataclass) ------------------------------------------------------------------------
@dataclasses.dataclass
class _Data:
    x: torch.Tensor
    scale: float = 2.0
    tags: list = dataclasses.field(default_factory=list)


@dataclasses.dataclass
class _PostInit:
    x: torch.Tensor

    def __post_init__(self):
        self.x += 1


@dataclasses.dataclass(frozen=True)
class _Frozen:
    a: int
    b: int = 3


def c_ps3m_dataclass_fields_and_replace(x):
    d = _Data(x + 1)
    d.tags.append("t")
    e = dataclasses.replace(d, scale=3.0)
    names = [f.name for f in dataclasses.fields(d)]
    return e.x * e.scale, names, e.tags is d.tags, d == _Data(d.x, 2.0, ["t"])


def c_ps3m_dataclass_post_init_inplace(x):
    d = _PostInit(x.clone())
    return d.x, type(d).__name__


def c_ps3m_frozen_dataclass_assign_refused(x):
    f = _Frozen(1)
    try:
        f.a = 2
    except dataclasses.FrozenInstanceError as e:
        err = type(e).__name__
    return x + f.a + f.b, err, f == _Frozen(1, 3), hash(f) == hash(_Frozen(1))


def c_ps3m_dataclass_asdict_astuple(x):
    f = _Frozen(4, 5)
    return x + sum(dataclasses.astuple(f)), dataclasses.asdict(f), dataclasses.is_dataclass(f)


# -- namedtuples (test_collections_namedtuple) -------------------------------------------------------------
_Pair = namedtuple("_Pair", ["first", "second"])


class _Typed(NamedTuple):
    a: torch.Tensor
    b: int = 1


def c_ps3m_namedtuple_make_fields_unpack(x):
    p = _Pair._make([x, x * 2])
    first, second = p
    q = p._replace(second=3)
    return first + second + q.second, _Pair._fields, isinstance(p, tuple), len(p), p[1] is second


def c_ps3m_typed_namedtuple_default_and_index(x):
    t = _Typed(x)
    u = _Typed(x, b=4)
    return t.a + t.b + u[1], t._asdict()["b"], u[1:].count(4), _Typed._field_defaults


def c_ps3m_namedtuple_class_made_in_frame(x):
    Point = namedtuple("Point", "x y")
    p = Point(1, y=x)
    return p.y + p.x, Point._fields


def c_ps3m_namedtuple_argument(x, p):
    return p.first * x + p.second, p._replace(first=0)


c_ps3m_namedtuple_argument.extra_args = lambda: (_Pair(2, 3),)


# -- functools (test_functools) ------------------------------------------------------------------------
def _scaled_add(a, b, scale=1, bias=0):
    return (a + b) * scale + bias


def c_ps3m_partial_of_partial_kwargs(x):
    p = functools.partial(_scaled_add, scale=2)
    q = functools.partial(p, x, bias=1)
    return q(1), q(2, scale=3), q.args, sorted(q.keywords), q.func is _scaled_add


@functools.lru_cache(maxsize=None)  # noqa: UP033 - lru_cache's own form
def _cached_square(n):
    return n * n


def c_ps3m_lru_cache_on_ints(x):
    return x + _cached_square(3) + _cached_square(3)


def _decorator(fn):
    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        return fn(*args, **kwargs) + 1

    return wrapper


@_decorator
def _wrapped(x, k=2):
    """doc"""
    return x * k


def c_ps3m_wraps_decorated_call(x):
    return _wrapped(x, k=3), _wrapped.__name__, _wrapped.__doc__, _wrapped.__wrapped__(x)


def c_ps3m_sorted_with_cmp_to_key(x):
    def cmp(a, b):
        return (a > b) - (a < b)

    items = sorted([3, 1, 2], key=functools.cmp_to_key(cmp))
    words = sorted(["bb", "a", "ccc"], key=functools.cmp_to_key(lambda a, b: len(b) - len(a)))
    return x + items[0], items, words


class _Lazy:
    def __init__(self, t):
        self.t = t

    @functools.cached_property
    def doubled(self):
        return self.t * 2


def c_ps3m_cached_property(x):
    obj = _Lazy(x)
    a = obj.doubled
    b = obj.doubled
    return a + b, a is b, "doubled" in obj.__dict__


@functools.total_ordering
class _Version:
    def __init__(self, n):
        self.n = n

    def __eq__(self, other):
        return self.n == other.n

    def __lt__(self, other):
        return self.n < other.n


def c_ps3m_total_ordering_comparisons(x):
    a, b = _Version(1), _Version(2)
    return x + (a <= b) + (b >= a) * 2 + (a > b) * 4, max(a, b).n


def c_ps3m_reduce_with_operator_and_initial(x):
    return (functools.reduce(operator.mul, [1, 2, 3], x), functools.reduce(max, [3, 9, 2]),
            functools.reduce(lambda acc, t: acc + t.sum(), [x, x * 2], 0))


# -- enums (test_enum) --------------------------------------------------------------------------------
class _Color(enum.Enum):
    RED = 1
    GREEN = 2

    def scale(self):
        return self.value * 10


class _Mode(enum.Flag):
    READ = enum.auto()
    WRITE = enum.auto()


def c_ps3m_enum_method_and_value_lookup(x, color):
    table = {_Color.RED: 0.5, _Color.GREEN: 2.0}
    return (x * table[color] + color.scale(), color.name, _Color(2) is _Color.GREEN, _Color["RED"].value,
            [c.name for c in _Color], color in _Color)


c_ps3m_enum_method_and_value_lookup.extra_args = lambda: (_Color.GREEN,)


def c_ps3m_flag_combinations(x):
    rw = _Mode.READ | _Mode.WRITE
    return x + bool(_Mode.READ & rw) + (rw.value if _Mode.WRITE in rw else 0), rw == (_Mode.WRITE | _Mode.READ)


# -- iteration (test_iter, test_listcomp, test_range, test_12_for_loop) -------------------------------------------
class _Countdown:
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return self

    def __next__(self):
        if self.n <= 0:
            raise StopIteration
        self.n -= 1
        return self.n


def c_ps3m_user_iterator_in_loop_and_list(x):
    out = x
    for v in _Countdown(3):
        out = out + v
    return out, list(_Countdown(2)), sum(_Countdown(4))


def c_ps3m_iter_with_sentinel(x):
    values = [3, 2, 1, 0, 5]
    it = iter(values.pop, 1)
    got = list(it)
    return x + len(got), got, values


def c_ps3m_comprehensions_over_zip_enumerate(x):
    rows = [x, x + 1, x + 2]
    weighted = [i * r for i, r in enumerate(rows, start=1)]
    pairs = {k: v for k, v in zip("abc", rows)}
    nested = [[i * j for j in range(3)] for i in range(2)]
    flat = [v for sub in nested for v in sub if v]
    return sum(weighted), pairs["b"], flat, {i % 2 for i in range(5)}


def c_ps3m_range_arithmetic_and_membership(x):
    r = range(10, 0, -3)
    return (x + len(r), list(r), r[1], r[-1], r[1:3], 4 in r, 7 in r, r.index(4), r.count(7),
            range(0, 6, 2) == range(0, 5, 2), list(reversed(range(3))))


def c_ps3m_loop_with_else_and_tensor_accumulate(x):
    acc = x
    for i in range(4):
        if i == 10:
            break
        acc = acc + i
    else:
        acc = acc * 2
    while acc.shape[0] > 5:
        pass
    return acc


def c_ps3m_itertools_mix(x):
    acc = list(itertools.accumulate([1, 2, 3]))
    prod = list(itertools.product("ab", [0, 1]))
    groups = [(k, len(list(g))) for k, g in itertools.groupby("aabbbc")]
    sl = list(itertools.islice(itertools.count(5, 2), 3))
    zl = list(itertools.zip_longest([1, 2, 3], "ab", fillvalue="-"))
    return x + acc[-1], prod, groups, sl, zl, list(itertools.starmap(pow, [(2, 3), (3, 2)]))


def c_ps3m_itertools_over_tensors(x):
    parts = list(itertools.chain([x], (x * 2, x * 3)))
    pairs = list(itertools.combinations(parts, 2))
    return sum(a * b for a, b in pairs), len(pairs)


# -- strings (test_09_f_string, test_20_string) ---------------------------------------------------------------
def c_ps3m_fstring_of_tensor_metadata(x):
    return x + 1, f"{x.shape}|{x.dtype}|{x.ndim:03d}|{x.shape[0]!r:>4}|{'txt'!s:^7}"


def c_ps3m_string_methods_chain(x):
    s = "  Hello, World  "
    parts = s.strip().lower().replace("world", "torch").split(", ")
    return (x + len(parts), "-".join(parts), s.count("l"), s.find("W"), s.startswith("  H"),
            "abc".center(7, "*"), "a,b,,c".split(",", 2), "%s=%d" % ("k", 3),  # noqa: UP031 - printf-style is the construct
            "x".zfill(3), "AbC".swapcase())


# -- super (test_23_super) ----------------------------------------------------------------------------------
class _Base:
    def value(self, x):
        return x + 1

    @classmethod
    def make(cls):
        return cls()


class _Left(_Base):
    def value(self, x):
        return super().value(x) * 2


class _Right(_Base):
    def value(self, x):
        return super().value(x) - 3


class _Diamond(_Left, _Right):
    def value(self, x):
        return super(_Left, self).value(x) + super().value(x)

    @classmethod
    def make(cls):
        obj = super().make()
        obj.made = True
        return obj


def c_ps3m_super_diamond_and_classmethod(x):
    d = _Diamond.make()
    return d.value(x), d.made, [c.__name__ for c in _Diamond.__mro__]



@functools.lru_cache
def _cached_plus_one(v):
    return v + 1


def c_ps3m_lru_cache_over_tensor_and_ints(x):
    a1 = _cached_plus_one(1)
    b1 = _cached_plus_one(x)
    b2 = _cached_plus_one(x)
    a2 = _cached_plus_one(1)
    c1 = _cached_plus_one(2)
    return a1, a2, b1, b2, c1, b1 is b2


def c_ps3m_reduce_merging_dicts_argument(x, dicts):
    merged = functools.reduce(lambda a, b: {**a, **b}, dicts)
    return x + merged["a"], merged


c_ps3m_reduce_merging_dicts_argument.extra_args = lambda: ([{"a": 1, "b": 2}, {"a": 3, "c": 4}],)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
