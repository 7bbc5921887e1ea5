"""Dicts, sets, lists and repros modelled on PyTorch's test/dynamo/test_dicts.py, test_sets.py, test_list.py,
test_repros.py and test_higher_order_ops.py, for ``capture_count.py --only dynamo_tests_colls3``: set algebra
between dict views, sets and set subclasses (and the in-place forms), comparisons across those kinds, the
result types of ``|`` on dict kinds, unusual hashable keys (ranges, frozensets, typing unions, builtin method
wrappers, frozen dataclasses), ``defaultdict`` copies and in-place unions, ``__dict__`` reads and writes behind
properties, weak-key dicts and ``.mapping`` of dict views. Each is written afresh over one tensor.
"""

from __future__ import annotations

import copy
import dataclasses
import enum
import operator
import types
import typing
import weakref
from collections import OrderedDict, defaultdict

import torch


class _MySet(set):
    pass


@dataclasses.dataclass(frozen=True)
class _Pin:
    a: int
    b: int


class _BackedByDict:
    def __init__(self, v):
        self.__dict__["v"] = v

    @property
    def v(self):
        return self.__dict__["v"]

    @v.setter
    def v(self, value):
        self.__dict__["v"] = value


class _Plain:
    def __init__(self):
        self.a = 3
        self.b = 5


_WEAK_OWNER = torch.nn.Module()
_WEAK_OTHER = torch.nn.Module()
_WEAK_STATES = weakref.WeakKeyDictionary({_WEAK_OWNER: 2})


# -- dict views under set algebra -----------------------------------------------------------------------------
def c_c3_keys_binops(x):
    a = {"one": 1, "two": 2}
    b = {"one": 1, "three": 3}
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    return x + 1, [op(a.keys(), b.keys()) for op in ops], [op(b.keys(), a.keys()) for op in ops]


def c_c3_items_binops(x):
    a = {"one": 1, "two": 2}
    b = {"one": 1, "three": 3}
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    return x + 1, [sorted(op(a.items(), b.items())) for op in ops]


def c_c3_keys_inplace_binops(x):
    out = []
    for op in (operator.ior, operator.iand, operator.ixor, operator.isub):
        a = {"one": 1, "two": 2}.keys()
        b = {"one": 1, "three": 3}.keys()
        a = op(a, b)
        out.append(a)
    return x * len(out), out


def c_c3_keys_vs_set(x):
    keys = {"one": 1, "two": 2, "three": 3}.keys()
    s = {"one", "four"}
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    return x, [op(keys, s) for op in ops], [op(s, keys) for op in ops]


def c_c3_keys_vs_set_inplace(x):
    out = []
    for op in (operator.ior, operator.iand, operator.ixor, operator.isub):
        keys = {"one": 1, "two": 2, "three": 3}.keys()
        s = {"one", "four"}
        out.append((op(keys, s), op(s, keys)))
    return x, out


def c_c3_items_vs_set(x):
    items = {"one": 1, "two": 2}.items()
    s = {("one", 1), ("three", 3)}
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    return x, [op(items, s) for op in ops], [op(s, items) for op in ops]


def c_c3_keys_vs_items(x):
    keys = {"one": 1, "two": 2}.keys()
    items = {"three": 3, "four": 4}.items()
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    return x, [op(keys, items) for op in ops], [op(items, keys) for op in ops]


def c_c3_keys_vs_set_subclass(x):
    keys = {"one": 1, "two": 2, "three": 3}.keys()
    s = _MySet({"one", "four"})
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    return x, [op(keys, s) for op in ops], [op(s, keys) for op in ops]


def c_c3_set_vs_set_subclass(x):
    s = {"one", "two", "three"}
    u = _MySet({"one", "four"})
    ops = (operator.or_, operator.and_, operator.xor, operator.sub)
    left = [op(s, u) for op in ops]
    right = [op(u, s) for op in ops]
    return x, left, right, [type(v).__name__ for v in left + right]


def c_c3_set_subclass_inplace(x):
    out = []
    for op in (operator.ior, operator.iand, operator.ixor, operator.isub):
        s = {"one", "two", "three"}
        u = _MySet({"one", "four"})
        r = op(u, s)
        out.append((r, type(r).__name__, r is u))
    return x, out


def c_c3_view_comparisons(x):
    keys = {"one": 1, "two": 2}.keys()
    items = {"one": 1, "two": 2}.items()
    s = {"one", "two", "three"}
    t = {("one", 1), ("two", 2), ("three", 3)}
    ops = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)
    res = [(op(keys, s), op(s, keys), op(items, t), op(t, items), op(keys, items)) for op in ops]
    return x + sum(sum(r) for r in res), res


def c_c3_set_subclass_comparisons(x):
    s = {"one", "two"}
    u = _MySet({"one", "two", "three"})
    keys = {"one": 1, "two": 2}.keys()
    ops = (operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne)
    return x, [(op(s, u), op(u, s), op(keys, u), op(u, keys)) for op in ops]


def c_c3_keys_iand_rebinds(x):
    d = {"one": 1, "two": 2, "three": 3}
    tmp = d.keys()
    tmp &= {"one", "four"}
    items = d.items()
    items -= {("two", 2)}
    return x * len(tmp), tmp, items, d


def c_c3_dict_union_result_types(x):
    dd = defaultdict(int, {1: 1, 2: 2})
    od = OrderedDict({3: 3, 4: 4})
    base = {5: 5, 6: 6}
    out = [dd | od, dd | base, base | dd, od | dd, base | od, base | base]
    return x, [type(v).__name__ for v in out], [dict(v) for v in out]


def c_c3_dict_or_bad_operand(x):
    a = {"one": x}
    caught = []
    for b in (1, 1.5, "a", (1, 2), [1, 2]):
        try:
            a | b
        except TypeError as e:
            caught.append(str(e))
    return x + len(caught), caught


# -- unusual keys ------------------------------------------------------------------------------------------
class _Level(enum.IntEnum):
    LOW = 1
    HIGH = 2


def c_c3_range_frozenset_keys(x):
    d = {range(5): x * 2, range(10, 15): x * 3, frozenset([1, 2]): x * 4}
    return d[range(0, 5, 1)] + d[range(10, 15)] + d[frozenset([2, 1])]


def c_c3_intenum_and_union_keys(x):
    d = {_Level.LOW: x * 2, _Level.HIGH: x * 3, typing.Union[int, str]: x * 5}  # noqa: UP007
    return d[_Level.LOW] + d[1] + d[typing.Union[str, int]] + d[_Level.HIGH]  # noqa: UP007


def c_c3_method_wrapper_keys(x):
    add, mul = list.__add__, list.__mul__
    d = {add: x * 2, mul: x * 3}
    return d[list.__add__] + d[mul]


def c_c3_torch_function_keys(x):
    d = {torch.add: x * 2, torch.mul: x * 3, torch.sub: x + 1}
    return d[torch.add] + d[torch.mul] + d[torch.sub]


def c_c3_frozen_dataclass_keys(x):
    d = {_Pin(1, 2): x * 2, _Pin(3, 4): x * 3}
    return d[_Pin(1, 2)] + d[_Pin(3, 4)], _Pin(1, 2) in d, _Pin(5, 6) in d


def c_c3_list_key_raises(x):
    try:
        d = {[1, 2]: x}
    except TypeError as e:
        return x - 1, str(e)
    return d


def c_c3_numpy_type_keys(x):
    import numpy as np

    d = {np.float32: x * 2, np.int64: x * 3, np.bool_: x * 4}
    return d[np.float32] + d[np.int64] + d[np.bool_]


# -- defaultdict -------------------------------------------------------------------------------------------
def c_c3_defaultdict_ior_keeps_factory(x):
    d = defaultdict(int, {1: 1, 2: 2})
    d |= [(0, "zero"), (1, "one")]
    r = d.__ior__({3: "three"})
    return x + d[4], r is d, d.default_factory is int, type(d).__name__, dict(d), list(d)


def c_c3_defaultdict_copies_keep_factory(x):
    d = defaultdict(list, {1: 1, 2: 2})
    c1 = d.copy()
    c2 = d.__copy__()
    c3 = copy.copy(d)
    c1[5].append(x)
    return (
        c1.default_factory is list,
        c2.default_factory is list,
        c3.default_factory is list,
        dict(c2),
        c3 == d,
        c1[5][0] + 1,
    )


def c_c3_defaultdict_no_factory(x):
    d = defaultdict()
    try:
        d[1] += 42
    except KeyError:
        d[1] = 1
    e = defaultdict(None, {1: 10})
    e[1] += 42
    try:
        e[2] += 24
    except KeyError:
        e[2] = 1
    return x + 1, d, e


def c_c3_defaultdict_from_dict_and_kwargs(x):
    d = dict([("a", 1), ("b", 2)], c=3)
    dd = defaultdict(list, d, d=4, e=5)
    dd["x"].append(42)
    return x + 1, d, dd


def c_c3_defaultdict_iterate_update(x):
    d = defaultdict(list)
    d[0] = 42
    for k in d:
        d[k] += 1
    return x + d[0], d


def c_c3_defaultdict_isinstance_fold(x):
    dd = defaultdict(int, a=1, b=2)
    assert isinstance(dd, defaultdict)
    return x + dd["a"] + dd["zz"], len(dd)


# -- OrderedDict -------------------------------------------------------------------------------------------
def c_c3_ordereddict_repr(x):
    od = OrderedDict(a=1, b=2)
    r = repr(od)
    return x + len(r), r


def _pairs(t):
    yield 1, t + 1
    yield 2, t + 2


def c_c3_ordereddict_from_generator(x):
    return OrderedDict(_pairs(x))


def c_c3_enum_functional_from_ordereddict(x):
    od = OrderedDict(a=1, b=2)
    E = enum.Enum("E", od)
    return x + E.a.value + E.b.value


def c_c3_ordereddict_move_to_end_returned(x):
    d = OrderedDict({"a": torch.cos(x), "b": 3, "c": 5})
    d.move_to_end("a")
    return d, list(d.keys())


# -- __dict__ and views ------------------------------------------------------------------------------------
def c_c3_property_backed_by_dunder_dict(x):
    obj = _BackedByDict(3)
    a = obj.v
    obj.v = a + 1
    obj.__dict__["v"] = obj.__dict__["v"] * 2
    return x * obj.v, obj.__dict__.get("v"), obj.__dict__.get("w", 7)


def c_c3_len_dunder_dict_after_del(x):
    obj = _Plain()
    del obj.a
    obj.c = 1
    return x * len(obj.__dict__), sorted(obj.__dict__), "a" in obj.__dict__


def c_c3_dunder_dict_store_then_attr(x):
    obj = _Plain()
    obj.__dict__["a"] = 10
    return x * obj.a + obj.__dict__["a"], obj.__dict__


def c_c3_weak_key_dict_contains(x):
    if _WEAK_OWNER in _WEAK_STATES:
        x = torch.sin(x)
    if _WEAK_OTHER in _WEAK_STATES:
        x = torch.cos(x)
    return x * _WEAK_STATES[_WEAK_OWNER]


def c_c3_view_mapping(x):
    d = {"a": 1, "b": 2}
    m_keys = d.keys().mapping
    m_items = d.items().mapping
    d["c"] = 3
    y = torch.sin(x)
    if isinstance(m_keys, types.MappingProxyType) and m_keys == d:
        y = y + 1
    return y, dict(m_keys), dict(m_items), m_items["c"]


def c_c3_items_returned_type(x):
    d = dict({"a": 1, "b": "2", "c": 3})
    return x + len(d), d.items(), d.keys(), d.values().__class__.__name__


# -- sets ---------------------------------------------------------------------------------------------------
class _FrozenChild(frozenset):
    pass


class _BumpSet(set):
    def add(self, item):
        return super().add(item + 1)

    def contains(self, item):
        return True


def c_c3_set_remove_discard_set_key(x):
    s = {frozenset("ab"), "c"}
    s.remove(set("ab"))
    s.discard({"z"})
    s.discard(set("c"))
    try:
        s.remove(set("q"))
    except KeyError:
        missing = True
    return x + len(s), s, missing


def c_c3_set_remove_discard_unhashable(x):
    caught = []
    for meth in ("remove", "discard"):
        try:
            getattr(set("abc"), meth)([])
        except TypeError as e:
            caught.append(str(e))
    return x * len(caught), caught


def c_c3_frozenset_copy_identity(x):
    p = frozenset("abc")
    q = _FrozenChild("abc")
    c = q.copy()
    return x, p.copy() is p, frozenset.copy(p) is p, type(c).__name__, c is q, c == q


def c_c3_set_method_arity_errors(x):
    p = set("abc")
    caught = []
    for call in (
        lambda: p.copy(1),
        p.issubset,
        lambda: p.issubset(1),
        lambda: p.isdisjoint([[]]),
        p.symmetric_difference,
        lambda: p.union(1),
        lambda: p.update([[]]),
    ):
        try:
            call()
        except TypeError:
            caught.append(1)
    return x + len(caught), p


def c_c3_set_unbound_methods(x):
    p, q, r = map(set, ["abc", "bc", "bef"])
    out = [set.union(q, r), set.intersection(p, q), set.difference(p, r), set.symmetric_difference(p, r)]
    set.update(q, r)
    set.discard(p, "a")
    set.intersection_update(r, p)
    return x, out, q, p, r, set.issubset(q, p), frozenset.isdisjoint(frozenset(p), r)


def c_c3_set_subclass_add_and_method(x):
    s = _BumpSet([1, 2])
    s.add(3)
    _BumpSet.add(s, 10)
    return x + len(s), s == {1, 2, 4, 11}, s.contains(99), sorted(s)


def c_c3_frozenset_subclass_binops(x):
    p, q = map(_FrozenChild, ["abc", "bef"])
    out = [p - q, p | q, p & q, p ^ q, _FrozenChild.__or__(p, q)]
    return x, out, [type(v).__name__ for v in out], p < p, q <= p, p == set("abc")


def c_c3_set_equality_across_kinds(x):
    p = _FrozenChild("abc")
    eq = [p == k("abc") for k in (set, frozenset, _MySet)]
    ne = [p != k("abe") for k in (set, frozenset, _MySet, dict.fromkeys, str, list, tuple)]
    return x + sum(eq) + sum(ne), eq, ne, p.__eq__(set(p)), p != 1


def c_c3_set_in_set_of_frozensets(x):
    item = set("abc")
    container = {frozenset("abc")}
    return x + (item in container), frozenset(item) in container, set("xy") in container


def c_c3_ordered_set(x):
    from torch.utils._ordered_set import OrderedSet

    s1 = OrderedSet(["a", "b", "c", "d"])
    s2 = OrderedSet(["d", "c", "b"])
    out = [list(s1.intersection(s2)), list(s1.union(["e"])), list(s1.difference(s2)), list(s1 | s2)]
    s1.add("z")
    s1.discard("a")
    return x + len(s1), out, list(s1), type(s1 & s2).__name__


def c_c3_ordered_set_from_iterables(x):
    from torch.utils._ordered_set import OrderedSet

    a = OrderedSet(v.upper() for v in ["a", "b", "c"])
    b = OrderedSet(map(str, [1, 2, 3]))
    c = OrderedSet(range(4))
    return x + len(c), list(a), list(b), list(c)


def c_c3_set_length_hints(x):
    results = []
    for obj in ({1, 2, 3}, {1: "a", 2: "b"}, {1: "a"}.values()):
        it = iter(obj)
        results.append(it.__length_hint__())
        next(it)
        results.append(it.__length_hint__())
    return x.sin(), results


# -- lists and tuples --------------------------------------------------------------------------------------
class _TupleWithNew(tuple):
    def __new__(cls, arg, extra=None):
        self = super().__new__(cls, arg)
        self.extra = extra
        return self


class _TupleGrandchild(_TupleWithNew):
    pass


class _PlainTuple(tuple):
    pass


class _PlainTupleChild(_PlainTuple):
    pass


class _ListWithNew(list):
    def __new__(cls, arg, extra=None):
        self = super().__new__(cls)
        self.extra = extra
        return self

    def __init__(self, arg, extra=None):
        super().__init__(arg)


class _ListGrandchild(_ListWithNew):
    pass


class _PlainList(list):
    pass


class _PlainListChild(_PlainList):
    pass


def c_c3_tuple_subclass_new_chain(x):
    t = _TupleWithNew([1, 2], extra=5)
    g = _TupleGrandchild([1, 2, 3])
    n = _PlainTupleChild.__new__(_PlainTupleChild, [4, 5])
    m = _PlainTupleChild([6])
    return (
        x + t.extra + len(g),
        tuple(t),
        tuple(g),
        type(g).__name__,
        tuple(n),
        type(n).__name__,
        type(m).__name__,
    )


def c_c3_tuple_new_exact_and_kwargs(x):
    t = tuple.__new__(tuple, [1, 2])
    try:
        tuple.__new__(tuple, [1, 2], extra=1)
    except TypeError as e:
        msg = str(e)
    return x + len(t), t, msg


def c_c3_list_subclass_new_chain(x):
    a = _ListWithNew([1, 2, 3], extra=7)
    b = _ListGrandchild([1, 2])
    c = _PlainListChild.__new__(_PlainListChild, [1, 2], extra="ignored")
    d = list.__new__(list, [1, 2], extra="ignored")
    d.append(9)
    return x + a.extra, list(a), list(b), type(b).__name__, list(c), type(c).__name__, d


def c_c3_list_subclass_returned_from_grandchild(x):
    return _PlainListChild([1, 2, 3]), x + 1


def c_c3_tuple_method_arity_errors(x):
    p = tuple("abcab")
    caught = []
    for call in (
        p.count,
        lambda: p.count(2, 3),
        p.index,
        p.__mul__,
        lambda: p.__mul__(2.2),
        p.__add__,
        lambda: p.__add__(dict.fromkeys("q")),
        p.__eq__,
        p.__lt__,
        p.__getitem__,
        lambda: p.__getitem__(1, 2),
        p.__contains__,
    ):
        try:
            call()
        except TypeError:
            caught.append(1)
    return x + len(caught), p.count("a"), p.count("ab"), p.__getitem__(2), p.__contains__("c")


def c_c3_list_dunder_iter_twice(x):
    p = [x, x + 1]
    it = p.__iter__().__iter__()
    q = (1, 2)
    return next(it) + next(iter(q.__iter__())), [q] * 2


def c_c3_list_setitem_slice_errors(x):
    p = list("abcdef")
    msgs = []
    try:
        p.__setitem__(slice(1, 5, 2), 1)
    except TypeError as e:
        msgs.append(str(e))
    try:
        p.__delitem__(slice(1, 1, 0))
    except ValueError as e:
        msgs.append(str(e))
    try:
        p.__delitem__(1.1)
    except TypeError as e:
        msgs.append(str(e))
    p[1:3] = ["x", "y"]
    p.__delitem__(slice(3, 5))
    return x + len(msgs), msgs, p


def c_c3_index_missing_across_sequences(x):
    import collections

    msgs = []
    for seq in ([1, 2, 3], (1, 2, 3), collections.deque([1, 2, 3])):
        try:
            seq.index("z")
        except ValueError as e:
            msgs.append(str(e))
    return x + len(msgs), msgs


class _NeverEqual:
    def __eq__(self, other):
        return False

    __hash__ = None


def c_c3_index_missing_objects(x):
    import collections

    msgs = []
    item = _NeverEqual()
    for seq in ([item], (item,), collections.deque([item])):
        try:
            seq.index("z")
        except ValueError as e:
            msgs.append(str(e).split(" at ")[0])
        msgs.append(seq.index(item))
    return x + len(msgs), msgs


_GLOBAL_SEQ = ["a", "b"]


def c_c3_global_list_imul_iadd_del(x):
    global _GLOBAL_SEQ
    _GLOBAL_SEQ = ["a", "b"]
    _GLOBAL_SEQ *= 2
    _GLOBAL_SEQ.__imul__(2)
    _GLOBAL_SEQ += ["c"]
    _GLOBAL_SEQ.__iadd__(["d"])
    del _GLOBAL_SEQ[1]
    return x.sin(), list(_GLOBAL_SEQ)


class _Counted(int):
    def __init__(self, *args):
        self.hash_count = 0

    def __hash__(self):
        self.hash_count += 1
        return int.__hash__(self)


def c_c3_set_do_not_rehash(x):
    d = dict.fromkeys(map(_Counted, range(4)))
    counts = [sum(e.hash_count for e in d)]
    s = set(d)
    counts.append(sum(e.hash_count for e in d))
    s.difference(d)
    counts.append(sum(e.hash_count for e in d))
    return x + len(s), counts


# -- repros (test_repros.py) ------------------------------------------------------------------------------
class _Holder:
    def __init__(self):
        self.v = 10


def c_c3_guard_through_tuple_in_dict(x, d):
    return x * d["a"] * d["b"][0].v


c_c3_guard_through_tuple_in_dict.extra_args = lambda: ({"a": 2, "b": (_Holder(),)},)


def c_c3_complex_mul_and_conj(x):
    z = torch.view_as_complex(torch.stack([x, x + 1], dim=-1))
    w = torch.mul(z, 2j)
    return torch.view_as_real(w + z.conj()), (z + z.conj()).real


class _Pixels(typing.TypedDict):
    kind: str
    data: torch.Tensor


def c_c3_typed_dict_made_and_set(x):
    obj = _Pixels(kind="pixel", data=x * 2)
    out = x * obj["data"]
    obj["data"] = 3
    extra = _Pixels(data=x, total=False)
    return out * obj["data"] + extra["data"], sorted(extra), type(obj).__name__


def c_c3_size_is_list(x):
    xs = [1, 2]
    if x.size(0) is xs:
        return x + 1
    if x.size(0) is not xs:
        return x * 2
    return x


def c_c3_size_bitwise(x):
    z = x.shape[0]
    z |= z >> 1
    z |= z << 1
    z &= z | (z > 1)
    y = (z > 1) | (z <= 1)
    z = (z | z) % 6
    if x.shape[0] | 5 > 4:
        x = x + 1
    if x.shape[0] & 6 > 1:
        x = x - 1
    return x * z, y


def c_c3_copy_int_overload(x):
    t = x.clone()
    return t.copy_(1), x.new_zeros(2).copy_(2.5)


def c_c3_typename_of_objects(x):
    return x + 1, torch.typename(typing.Any), torch.typename(x), torch.typename(3)


@dataclasses.dataclass
class _Value:
    value: float


class _WithData(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.data_ = _Value(value=3.5)

    def forward(self, x):
        return x + torch.tensor(self.data_.value)


_WITH_DATA = _WithData()


def c_c3_dataclass_in_module(x):
    return _WITH_DATA(x)


def c_c3_rand_argsort_indices(x):
    latent = x.reshape(1, 3).expand(2, 3)
    r = torch.rand(2, 3)
    order = torch.argsort(torch.rand(*r.shape), dim=-1)[:, :2]
    return latent[torch.arange(2).unsqueeze(-1), order]


def c_c3_check_with_floor_of_bitwise(x):
    import math

    torch._check(math.floor((x.size(0) | 3) * 4) == 12)
    return x.sin()


# -- higher-order ops (test_higher_order_ops.py) -------------------------------------------------------------
class _Slot:
    pass


_SLOT = _Slot()
_GLOBAL_T = torch.ones(3)


def c_c3_wrap_deletes_global_attr(x):
    from torch._higher_order_ops.wrap import wrap

    _SLOT.foo = torch.tensor(4.0)

    def body(t):
        del _SLOT.foo
        return t.clone()

    return wrap(body, x), hasattr(_SLOT, "foo")


def c_c3_wrap_global_tensor_iadd(x):
    from torch._higher_order_ops.wrap import wrap

    global _GLOBAL_T
    _GLOBAL_T = torch.ones(3)

    def body(t):
        global _GLOBAL_T
        _GLOBAL_T += 1
        return t + _GLOBAL_T

    return wrap(body, x) + _GLOBAL_T


def c_c3_wrap_nonlocal_tensor_iadd(x):
    from torch._higher_order_ops.wrap import wrap

    val = torch.tensor(1.0)

    def body(t):
        nonlocal val
        val += 1
        return t + val

    return wrap(body, x) + val


def c_c3_wrap_sets_module_parameter(x):
    from torch._higher_order_ops.wrap import wrap

    lin = torch.nn.Linear(3, 3)

    def body(t):
        lin.bias = torch.nn.Parameter(torch.zeros(3))
        return lin(t)

    return wrap(body, x).shape, lin.bias.sum()


def c_c3_map_nested(x):
    from functorch.experimental.control_flow import map as cf_map

    xs = torch.stack([x, x * 2], dim=1).reshape(3, 2, 1)  # (map refuses operands sharing memory, in eager too)

    def inner(row, y):
        return cf_map(lambda a, b: a + b, row, y)

    return cf_map(inner, xs, x[:1].clone())


def c_c3_map_pytree_result(x):
    from functorch.experimental.control_flow import map as cf_map

    def body(a):
        return a.clone(), [[a * 2]], (a + 1, (a - 1,)), {"k": a.sin()}

    return cf_map(body, x.reshape(3, 1))


def c_c3_wrap_keyword_default_given(x):
    from torch._higher_order_ops.wrap import wrap

    def body(*, a, b, c=None):
        if c is None:
            return a * 2 + b
        return a * c

    return wrap(body, a=x, b=x, c=8), wrap(body, a=x, b=1)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
