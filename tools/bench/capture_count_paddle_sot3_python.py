"""Python values beside tensors, after Paddle's SOT tests (test_20_string, test_14_operators, test_15_slice,
test_builtin_*, test_functools, test_25_with), with torch, for ``capture_count.py --only paddle_sot3``: format
fields, bytes, int and float methods, math functions, dict views and set algebra, slice objects, operator's
getters, ChainMap and Counter arithmetic, abstract base classes, SimpleNamespace, singledispatch, contextlib's
helpers, heapq and bisect, itertools' filters, starred unpacking, chained comparisons.
"""

from __future__ import annotations

import bisect
import collections
import collections.abc
import contextlib
import functools
import heapq
import io
import itertools
import json
import math
import operator
import string
import sys
import types
from abc import ABC, abstractmethod

import torch


def c_ps3p_format_fields(x):
    d = {"k": 3}
    fields = "{0.shape}|{1[k]}|{d[k]}".format(x, d, d=d)  # noqa: UP032 - str.format is the construct
    return (x + 1, fields, format(x.shape[0], "04d"), "{:.2f}|{:>5}|{:x}".format(1.5, "ab", 255), f"{3.14159:.3}",
            "{!r}".format("q"))


def c_ps3p_bytes_values(x):
    b = b"ab" + b"c"
    arr = bytearray(b)
    arr.append(100)
    return (x + len(arr), b.hex(), bytes(arr), int.from_bytes(b"\x01\x02", "big"), (258).to_bytes(2, "little"),
            b.upper(), b[1], b"a" in b)


def c_ps3p_int_and_float_methods(x):
    return (x + (37).bit_length(), divmod(17, 5), round(2.675, 2), abs(-3), int("ff", 16), hex(255), bin(5), oct(8),
            (4.0).is_integer(), (0.75).as_integer_ratio(), float("1e3"), int(-3.7), round(7.5), (-7) // 2, -7 % 3)


def c_ps3p_math_functions(x):
    return (x * math.prod([1, 2, 3]), math.gcd(12, 18), math.lcm(4, 6), math.comb(5, 2), math.perm(4, 2),
            math.isqrt(17), math.fsum([0.1] * 10), math.copysign(2, -1), math.hypot(3, 4), math.dist((0, 0), (3, 4)),
            math.isclose(0.1 + 0.2, 0.3), math.inf > 1e308, math.isnan(math.nan), math.degrees(math.pi), math.trunc(-2.5))


def c_ps3p_dict_views_and_set_algebra(x):
    d = {"a": 1, "b": 2, "c": 3}
    common = d.keys() & {"b", "c", "z"}
    rest = d.keys() - {"a"}
    s = {1, 2, 3}
    s.symmetric_difference_update({3, 4})
    return (x + len(common), sorted(common), sorted(rest), list(reversed(d)), s, {1}.isdisjoint({2}),
            {1, 2} <= {1, 2, 3}, frozenset({1, 2}) == {2, 1}, ("a", 1) in d.items(), d.popitem(), d)


def c_ps3p_slice_objects(x):
    s = slice(1, None)
    items = [10, 20, 30, 40]
    return x + items[s][0], s.start, s.stop, s.indices(5), slice(None, None, -2).indices(4), items[slice(3)]


def c_ps3p_operator_getters(x):
    rows = [(3, "c"), (1, "a"), (2, "b")]
    first = operator.itemgetter(0)
    both = operator.itemgetter(1, 0)
    up = operator.methodcaller("upper")
    shape = operator.attrgetter("shape")
    return (x + sum(map(first, rows)), sorted(rows, key=first), both(rows[0]), up("hi"), shape(x),
            operator.attrgetter("dtype.is_floating_point")(x))


def c_ps3p_chainmap_and_counter_arithmetic(x):
    defaults = {"lr": 0.1, "wd": 0.0}
    user = {"lr": 0.5}
    cfg = collections.ChainMap(user, defaults)
    a = collections.Counter("aab")
    b = collections.Counter("abc")
    return (x * cfg["lr"] + cfg["wd"], dict(a + b), dict(a - b), dict(a & b), dict(a | b), sorted(cfg),
            a.total(), collections.OrderedDict(a=1) == {"a": 1})


class _Shape(ABC):
    @abstractmethod
    def area(self): ...

    def double(self):
        return self.area() * 2


class _Square(_Shape):
    def __init__(self, side):
        self.side = side

    def area(self):
        return self.side * self.side


def c_ps3p_abstract_base_class(x):
    sq = _Square(x)
    return sq.double(), isinstance(sq, _Shape), issubclass(_Square, ABC)


def c_ps3p_abc_checks(x):
    return (x + 1, isinstance([1], collections.abc.Sequence), isinstance({}, collections.abc.Mapping),
            isinstance(x, collections.abc.Iterable), isinstance(len, collections.abc.Callable),
            isinstance((i for i in []), collections.abc.Generator), callable(x), callable(torch.add))


def c_ps3p_simple_namespace(x):
    ns = types.SimpleNamespace(scale=2, bias=x)
    ns.extra = 1
    return x * ns.scale + ns.bias + ns.extra, sorted(vars(ns)), ns == types.SimpleNamespace(scale=2, bias=x, extra=1)


@functools.singledispatch
def _describe(value):
    return "other"


@_describe.register
def _(value: int):
    return "int"


@_describe.register(list)
def _(value):
    return f"list{len(value)}"


def c_ps3p_singledispatch(x):
    return x + 1, _describe(3), _describe([1, 2]), _describe("s")


def c_ps3p_contextlib_helpers(x):
    with contextlib.suppress(KeyError):
        x = x + 1
        {}["missing"]
        x = x * 100
    with contextlib.nullcontext(x) as same:
        y = same * 2
    with contextlib.ExitStack() as stack:
        stack.enter_context(torch.no_grad())
        z = y + 1
    return x, y, z.requires_grad


def c_ps3p_heapq_and_bisect(x):
    heap = []
    for v in (5, 1, 4, 2):
        heapq.heappush(heap, v)
    smallest = heapq.heappop(heap)
    ordered = [1, 3, 5]
    bisect.insort(ordered, 4)
    return (x + smallest, heap, heapq.nsmallest(2, [7, 3, 9]), heapq.nlargest(1, [7, 3, 9]), ordered,
            bisect.bisect_left(ordered, 4), bisect.bisect_right(ordered, 4))


def c_ps3p_itertools_filters(x):
    nums = [1, 4, 6, 3, 8]
    return (x + len(list(itertools.takewhile(lambda v: v < 5, nums))), list(itertools.dropwhile(lambda v: v < 5, nums)),
            list(itertools.compress("abcde", [1, 0, 1, 0, 1])), list(itertools.filterfalse(lambda v: v % 2, nums)),
            list(itertools.pairwise("abc")), list(itertools.islice(itertools.cycle("xy"), 5)),
            list(itertools.repeat(7, 2)), list(itertools.permutations([1, 2])),
            list(itertools.combinations_with_replacement("ab", 2)))


def c_ps3p_tee_and_iterator_objects(x):
    a, b = itertools.tee(iter([1, 2, 3]))
    first_a = next(a)
    e = enumerate("pq")
    z = zip("ab", "cd")
    m = map(abs, [-1, -2])
    f = filter(None, [0, 1, 2])
    return x + first_a + sum(b), list(a), next(e), next(z), next(m), next(f), list(f)


def c_ps3p_starred_unpacking_and_comparisons(x):
    *head, last = range(4)
    first, *_ = "xyz"
    a, (b, *c) = 1, (2, 3, 4)
    n = x.shape[0]
    return x + last, head, first, a, b, c, 0 < n <= 3, 1 < 2 < 3 > 2, n if 1 < n else -n


def c_ps3p_string_methods_more(x):
    s = "key=value=more"
    table = str.maketrans("ab", "xy")
    return (x + len(s.partition("=")), s.rpartition("="), s.rsplit("=", 1), "aabb".translate(table),
            "a\tb".expandtabs(4), "ÄB".casefold(), "x_1".isidentifier(), "hello world".title(), "ab".ljust(4, "."),
            "-" * 3, "ell" in "hello", string.ascii_lowercase[:3], "a1".isalnum(), "  ".isspace())


def c_ps3p_functions_by_name(x):
    table = {"relu": torch.nn.functional.relu, "neg": torch.neg}
    act = getattr(torch.nn.functional, "silu")  # noqa: B009 - the builtin is the construct
    return table["relu"](x - 1) + table["neg"](x) + act(x), hasattr(torch, "compile"), hasattr(torch, "nope")


def c_ps3p_init_functions_on_made_tensors(x):
    w = torch.empty(3)
    torch.nn.init.zeros_(w)
    v = torch.empty(2, 3)
    torch.nn.init.constant_(v, 0.5)
    return x + w + v.sum(0)


def c_ps3p_tensor_unpack_and_len(x):
    a, b, c = x
    rows = [r * 2 for r in x.reshape(3, 1)]
    return a + b + c, len(x), rows[1], x.shape == (3,), x.size(0), x.size(-1), max(x.shape), math.prod(x.shape)


def c_ps3p_lambda_defaults_in_loop(x):
    fns = [lambda t, k=k: t * k for k in range(3)]
    late = [lambda t: t * k for k in range(3)]  # noqa: B023 - the late binding is the construct
    return sum(f(x) for f in fns), sum(f(x) for f in late)


def c_ps3p_nonlocal_counters(x):
    calls = 0

    def bump(t):
        nonlocal calls
        calls += 1
        return t + calls

    def twice(t):
        return bump(bump(t))

    return twice(x), calls


def c_ps3p_class_decorator_and_init_subclass(x):
    registry = []

    class Base:
        def __init_subclass__(cls, tag="none", **kwargs):
            super().__init_subclass__(**kwargs)
            registry.append((cls.__name__, tag))

    class A(Base, tag="a"):
        pass

    class B(Base):
        pass

    return x + len(registry), registry, A.__name__, issubclass(B, Base)



def c_ps3p_interpreter_version_checks(x):
    y = x + 1
    newer = sys.version_info >= (3, 8)
    return y + newer, sys.version_info[:2], sys.version_info.major, sys.float_info.epsilon > 0, y * 2


def c_ps3p_json_round_trip(x):
    y = x + 1
    s = json.dumps({"a": 1, "b": [1, 2]})
    return y + len(s), json.loads(s), y * 2


def c_ps3p_print_to_string_buffer(x):
    y = x + 1
    buf = io.StringIO()
    print("hello", 3, file=buf)
    return y + 1, buf.getvalue()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
