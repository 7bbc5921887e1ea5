"""Dicts modelled on PyTorch's test/dynamo/test_dicts.py, for ``capture_count.py --only dynamo_tests_colls3`` (sets
and lists are in ``_seqs``, repros and higher-order ops in ``_repros``): set algebra between dict views, sets and
set subclasses (and the in-place forms), comparisons across those kinds, the result types of ``|`` on dict kinds,
unusual hashable keys (ranges, frozensets, typing unions, builtin method wrappers, frozen dataclasses),
``defaultdict`` copies and in-place unions, ``__dict__`` reads and writes behind properties, weak-key dicts and
``.mapping`` of dict views. Each is written afresh over one tensor.
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


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
