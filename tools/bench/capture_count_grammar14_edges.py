"""Corners of the constructs in ``capture_count_grammar14.py`` (CPython's test_patma, test_grammar, test_tuple,
test_range, test_slice, test_enum, test_setcomps and test_except_star in PyTorch's Dynamo suite): patterns on
tensors, ``torch.Size`` and named tuples, ``**rest`` of non-dict mappings, identity before equality in
containers holding tensors, decorator expressions, enums made by call, ranges past ``sys.maxsize``.
"""

from __future__ import annotations

import collections
import collections.abc
import enum
import types
from typing import NamedTuple

import torch


class _NT(NamedTuple):
    a: int
    b: object


def c_grammar14_edge_match_tensor_class_keyword(x):
    match x:
        case torch.Tensor(shape=(n,), dtype=torch.float32):
            return x * n
        case torch.Tensor(ndim=2):
            return x.sum(0)
    return x


def c_grammar14_edge_match_torch_size(x):
    y = x.reshape(3, 1)
    match y.shape:
        case torch.Size([a, 1]):
            return y + a
        case torch.Size([a, b]):
            return y - a - b
    return y


class _Plain:
    pass


class _MapThenSeq(collections.UserDict, collections.abc.Sequence):
    pass


class _DictSeq(dict, collections.abc.Sequence, _Plain):
    pass


class _SeqThenMap(collections.UserList, collections.abc.Mapping):
    pass


class _LateParent:
    pass


class _LateChildPre(_LateParent):
    pass


collections.abc.Mapping.register(_LateParent)


class _LateChildPost(_LateParent):
    pass


def c_grammar14_edge_match_multiple_inheritance_kind(x):
    kinds = []
    for v in (_MapThenSeq(), _DictSeq(), _SeqThenMap(), _LateParent(), _LateChildPre(), _LateChildPost()):
        match v:
            case [*_]:
                kinds.append("seq")
            case {}:
                kinds.append("map")
            case _:
                kinds.append("other")
    return x + kinds.count("map"), kinds


def c_grammar14_edge_match_namedtuple(x):
    out = []
    for v in (_NT(1, x), _NT(2, "s"), (3, 4)):
        match v:
            case _NT(1, t):
                out.append(t.sum())
            case _NT(a=a, b=str(s)):
                out.append(a + len(s))
            case (p, q):
                out.append(p * q)
    return out[0] + out[1] + out[2]


def c_grammar14_edge_match_rest_of_userdict(x):
    d = collections.UserDict({"a": 1, "b": 2, "c": 3})
    match d:
        case {"a": a, **rest}:
            return x + a, sorted(rest.items()), type(rest).__name__
    return x, None, None


def c_grammar14_edge_match_rest_of_ordereddict(x):
    d = collections.OrderedDict(b=2, a=1, c=x)
    match d:
        case {"a": 1, **rest}:
            return rest["c"] + rest["b"], list(rest), type(rest).__name__
    return x, None, None


def c_grammar14_edge_match_simple_namespace(x):
    ns = types.SimpleNamespace(kind="scale", factor=3)
    match ns:
        case types.SimpleNamespace(kind="shift", amount=a):
            return x + a
        case types.SimpleNamespace(kind="scale", factor=f):
            return x * f
    return x


class _Mode(enum.Enum):
    TRAIN = "train"
    EVAL = "eval"


def c_grammar14_edge_match_enum_class_pattern(x):
    out = []
    for m in (_Mode.TRAIN, _Mode.EVAL):
        match m:
            case _Mode(value="train"):
                out.append(x + 1)
            case _Mode():
                out.append(x - 1)
    return out[0] * out[1]


def c_grammar14_edge_match_or_of_classes(x):
    out = []
    for v in (1, 2.5, "s", b"b", None):
        match v:
            case int() | float() as num:
                out.append(num)
            case str() | bytes():
                out.append(len(v) * 10)
            case _:
                out.append(0)
    return x + sum(out), out


def c_grammar14_edge_match_walrus_guard(x):
    out = []
    for v in ([1, 2, 3], [4], [5, 6]):
        match v:
            case [*items] if (n := len(items)) > 2:
                out.append(n * 100)
            case [a, *_] if (d := a * 2) > 8:
                out.append(d)
            case _:
                out.append(-1)
    return x + sum(out), out


def c_grammar14_edge_tuple_eq_identity_first(x):
    t = (x, 1)
    lst = [x, x + 1]
    return x + 1, t == (x, 1), x in [x], lst.index(x), (x,) < (x, 2)


def c_grammar14_edge_tuple_hash_with_tensor(x):
    t = (x, 1)
    y = x * 2
    return y, hash(t) == hash((x, 1)), len({t, (x, 1)}), hash(y) == id(y)


def c_grammar14_edge_tuple_subclass_new(x):
    class Pair(tuple):
        def __new__(cls, a, b):
            return super().__new__(cls, (a, b))

        def total(self):
            return self[0] + self[1]

    p = Pair(x, 2)
    return p.total(), len(p), isinstance(p, tuple)


def c_grammar14_edge_range_past_maxsize(x):
    r = range(2 ** 64)
    try:
        n = len(r)
    except OverflowError as e:
        n = str(e)
    return x + 1, n, r[2 ** 63], r.count(5), 2 ** 63 in r, r[-1] == 2 ** 64 - 1


def c_grammar14_edge_range_equality_by_content(x):
    checks = (range(0, 1, 2) == range(0, 1, 3), range(0) == range(5, 2), range(0, 5, 2) == range(0, 6, 2),
              hash(range(0, 1, 2)) == hash(range(0, 1, 3)), range(5)[True], range(3, 10, 3).index(9))
    return x + len(checks), checks


def c_grammar14_edge_range_of_tensor_size(x):
    out = x
    for i in range(x.shape[0] - 1, -1, -1):
        out = out + x[i] * i
    return out, list(range(x.numel()))[::-1]


def c_grammar14_edge_slice_step_zero_indices(x):
    try:
        slice(0, 10, 0).indices(5)
    except ValueError as e:
        msg = str(e)
    try:
        slice(1, 2).indices(-1)
    except ValueError as e:
        msg2 = str(e)
    return x + 1, msg, msg2


def c_grammar14_edge_slice_compare(x):
    checks = (slice(1, 2) < slice(1, 3), slice(1, 2, None) == slice(1, 2), slice(None) != slice(0))
    return x[slice(None, None, 2)] + sum(checks), checks


def c_grammar14_edge_decorator_expressions(x):
    table = {"double": lambda f: lambda t: f(t) * 2}
    decorators = [lambda f: lambda t: f(t) + 1]

    @table["double"]
    def a(t):
        return t

    @decorators[0]
    def b(t):
        return t

    @(lambda f: f)
    def c(t):
        return t - 1

    return a(x) + b(x) + c(x)


def c_grammar14_edge_return_star_unpack(x):
    def parts(*a):
        head = (x, x + 1)
        return *head, *a

    r = parts(1, 2)
    for (v,) in [(x,)]:
        s = v
    return r[0] + r[1] + s, r[2:]


def c_grammar14_edge_enum_functional_api(x):
    Animal = enum.Enum("Animal", "ANT BEE CAT")
    Size = enum.IntEnum("Size", [("S", 1), ("L", 3)])
    return x * Size.L + Animal.BEE.value, [m.name for m in Animal], Size(3).name


def c_grammar14_edge_enum_missing_hook(x):
    class Level(enum.Enum):
        LOW = 1
        HIGH = 2

        @classmethod
        def _missing_(cls, value):
            if isinstance(value, str):
                return cls[value.upper()]
            return None

    return x + Level("high").value, Level.LOW.name


def c_grammar14_edge_enum_unique_raises(x):
    try:
        @enum.unique
        class Dup(enum.Enum):
            A = 1
            B = 1
    except ValueError as e:
        return x + 1, str(e)
    return x, None


def c_grammar14_edge_enum_members_methods(x):
    class Op(enum.Enum):
        ADD = "+"
        MUL = "*"

        def apply(self, a, b):
            return a + b if self is Op.ADD else a * b

        @property
        def symbol(self):
            return self.value

    return Op.ADD.apply(x, 2) + Op.MUL.apply(x, 3), [o.symbol for o in Op], Op("*") is Op.MUL


def c_grammar14_edge_flag_iteration_and_names(x):
    class F(enum.Flag):
        A = enum.auto()
        B = enum.auto()
        C = enum.auto()

    ab = F.A | F.B
    return x + len(ab), [m.name for m in ab], F(3) == ab, ~F.A == (F.B | F.C), bool(F(0))


def c_grammar14_edge_setcomp_of_tensors_by_identity(x):
    ts = [x, x, x + 1]
    unique = {id(t) for t in ts}
    s = {t for t in ts}
    return sum(ts) + len(unique), len(s)


def c_grammar14_edge_except_star_tuple_and_naked(x):
    got = []
    try:
        raise TypeError("naked")
    except* (ValueError, TypeError) as eg:
        got.append((type(eg).__name__, [str(e) for e in eg.exceptions]))
        x = x + 1
    return x, got


def c_grammar14_edge_except_star_group_subclass_derive(x):
    class MyGroup(ExceptionGroup):
        def derive(self, excs):
            return MyGroup(self.message + "!", excs)

    caught = []
    try:
        try:
            raise MyGroup("m", [ValueError(1), KeyError(2)])
        except* ValueError as eg:
            caught.append((type(eg).__name__, eg.message))
    except MyGroup as rest:
        caught.append((type(rest).__name__, rest.message, len(rest.exceptions)))
    return x + len(caught), caught


CONSTRUCTS = [c_grammar14_edge_match_tensor_class_keyword, c_grammar14_edge_match_torch_size, c_grammar14_edge_match_multiple_inheritance_kind,
              c_grammar14_edge_match_namedtuple, c_grammar14_edge_match_rest_of_userdict,
              c_grammar14_edge_match_rest_of_ordereddict, c_grammar14_edge_match_simple_namespace,
              c_grammar14_edge_match_enum_class_pattern, c_grammar14_edge_match_or_of_classes,
              c_grammar14_edge_match_walrus_guard, c_grammar14_edge_tuple_eq_identity_first, c_grammar14_edge_tuple_hash_with_tensor,
              c_grammar14_edge_tuple_subclass_new, c_grammar14_edge_range_past_maxsize,
              c_grammar14_edge_range_equality_by_content, c_grammar14_edge_range_of_tensor_size,
              c_grammar14_edge_slice_step_zero_indices, c_grammar14_edge_slice_compare,
              c_grammar14_edge_decorator_expressions, c_grammar14_edge_return_star_unpack,
              c_grammar14_edge_enum_functional_api, c_grammar14_edge_enum_missing_hook,
              c_grammar14_edge_enum_unique_raises, c_grammar14_edge_enum_members_methods,
              c_grammar14_edge_flag_iteration_and_names, c_grammar14_edge_setcomp_of_tensors_by_identity,
              c_grammar14_edge_except_star_tuple_and_naked, c_grammar14_edge_except_star_group_subclass_derive]
