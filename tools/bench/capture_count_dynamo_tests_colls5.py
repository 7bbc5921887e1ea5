"""Containers modelled on PyTorch's test/dynamo/test_dicts.py, test_list.py, test_sets.py and the CPython-derived
tests under test/dynamo/cpython/3_13/ (test_dict.py, test_list.py, test_set.py, test_ordered_dict.py,
test_userdict.py, test_userlist.py, test_defaultdict.py, test_collections.py), for ``capture_count.py --only
dynamo_tests_colls5``. They go after what the earlier container areas leave out: subclasses of dict, set and list
whose overridden dunders the builtins must (or must not) call, user objects with their own ``__hash__``/``__eq__``
as set members and dict keys, view algebra with reversed views, ``|`` of dicts with other mappings,
``MappingProxyType``, ``UserString``, ``copy.deepcopy`` of nested containers, sorts over mixed keys, and
containers mutated while iterated. Each is written afresh over one tensor.
"""

# ruff: noqa: B007, B033, RUF005, RUF024 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import collections
import copy
import types
from collections import OrderedDict, UserDict, UserList, UserString, defaultdict


# -- dict subclasses: which overridden dunders the builtins call ------------------------------------------------
class _LoudGet(dict):
    """``dict.get``, ``in`` and ``dict(d)`` do not call an overridden ``__getitem__``; subscription does."""

    def __getitem__(self, key):
        return dict.__getitem__(self, key) * 10


def c_c5_dict_subclass_getitem_bypassed_by_get(x):
    d = _LoudGet(a=1, b=2)
    plain = dict(d)
    return x + d["a"] + d.get("b") + plain["a"], "a" in d, sorted(d.items())


class _NoContains(dict):
    def __contains__(self, key):
        return key == "magic"


def c_c5_dict_subclass_contains_override(x):
    d = _NoContains(a=1)
    return x + ("a" in d) + ("magic" in d) * 2 + d.get("a", 0), "a" in d.keys()


class _Missing(dict):
    def __missing__(self, key):
        value = len(key) if isinstance(key, str) else -1
        self[key] = value
        return value


def c_c5_dict_subclass_missing_stores(x):
    d = _Missing()
    total = d["abc"] + d[(1, 2)] + d.get("zz", 100)
    return x + total, dict(d), "zz" in d


class _UpperKeys(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key.upper(), value)


def c_c5_dict_subclass_setitem_not_used_by_update(x):
    d = _UpperKeys()
    d["a"] = 1
    d.update(b=2)
    d.setdefault("c", 3)
    return x + len(d), sorted(d)


class _KeysOverride(dict):
    def keys(self):
        return ["only"]

    def __getitem__(self, key):
        return 7


def c_c5_dict_update_from_subclass_uses_keys(x):
    src = _KeysOverride(a=1, b=2)
    d = {}
    d.update(src)  # a dict subclass without its own __iter__: update and dict() read its items in C
    e = dict(src)
    return x + d["a"], d, e, sorted(src), src.keys()


class _IterOverride(dict):
    def __iter__(self):
        return iter(["b", "a"])


def c_c5_dict_subclass_iter_override_list(x):
    d = _IterOverride(a=1, b=2)
    return x + d["a"], list(d), list(d.keys()), [k for k in d]


class _EqAlways(dict):
    def __eq__(self, other):
        return True

    __hash__ = None


def c_c5_dict_subclass_eq_override(x):
    d = _EqAlways(a=1)
    return x + (d == {"z": 9}) + ({"z": 9} == d) * 2 + (d != {}) * 4


# -- user objects as set members and dict keys ----------------------------------------------------------------
class _Key:
    def __init__(self, name, salt):
        self.name = name
        self.salt = salt

    def __hash__(self):
        return hash(self.name)

    def __eq__(self, other):
        return isinstance(other, _Key) and self.name == other.name


def c_c5_custom_key_dict_lookup_by_equal(x):
    d = {_Key("a", 1): 10, _Key("b", 2): 20}
    d[_Key("a", 3)] = 11
    first = next(iter(d))
    return x + d[_Key("a", 9)] + len(d), first.salt, _Key("b", 0) in d


def c_c5_custom_key_set_dedups(x):
    s = {_Key("a", 1), _Key("a", 2), _Key("b", 3)}
    s.add(_Key("b", 4))
    s.discard(_Key("a", 0))
    return x + len(s), sorted(k.salt for k in s)


class _HashCollides:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        return 1

    def __eq__(self, other):
        return isinstance(other, _HashCollides) and self.v == other.v


def c_c5_colliding_hashes_distinct(x):
    s = {_HashCollides(i % 3) for i in range(7)}
    d = dict.fromkeys(s, 0)
    d[_HashCollides(1)] += 5
    return x + len(s) + sum(d.values())


def c_c5_int_float_key_unify(x):
    d = {1: "int"}
    d[1.0] = "float"
    d[True] = "bool"
    s = {0, 0.0, False}
    return x + len(d) + len(s), d, type(next(iter(d))).__name__


# -- frozenset operations ----------------------------------------------------------------------------------------
def c_c5_frozenset_algebra_types(x):
    a = frozenset([1, 2, 3])
    b = {2, 3, 4}
    r1 = a | b
    r2 = b | a
    r3 = a.union([9])
    return x + len(r1), type(r1).__name__, type(r2).__name__, type(r3).__name__, sorted(a ^ b)


def c_c5_frozenset_as_key_equal_set(x):
    d = {frozenset("ab"): 1}
    return x + d[frozenset("ba")], frozenset("ab") == {"a", "b"}, {"a", "b"} in {frozenset("ab")}


def c_c5_frozenset_hash_matches(x):
    a = frozenset([1, 2])
    b = frozenset([2, 1])
    return x + (hash(a) == hash(b)), a <= {1, 2, 3}, a.isdisjoint([3, 4])


# -- views -------------------------------------------------------------------------------------------------------
def c_c5_keys_and_set_literal(x):
    d = {"a": 1, "b": 2, "c": 3}
    common = d.keys() & {"a", "c", "z"}
    rest = d.keys() - ["a"]
    sym = {"z"} ^ d.keys()
    return x + len(common), sorted(common), sorted(rest), sorted(sym), type(common).__name__


def c_c5_items_xor_and_or(x):
    d = {"a": 1, "b": 2}
    e = {"a": 1, "b": 3}
    return x + len(d.items() ^ e.items()), sorted(d.items() | e.items()), sorted(d.items() & e.items())


def c_c5_view_comparisons(x):
    d = {"a": 1, "b": 2}
    k = d.keys()
    return (x + (k == {"a", "b"}) + (k < {"a", "b", "c"}) * 2 + (k >= {"a"}) * 4,
            d.items() == {("a", 1), ("b", 2)}, k != ["a", "b"])


def c_c5_reversed_views(x):
    d = {"a": 1, "b": 2, "c": 3}
    return x + next(reversed(d.values())), list(reversed(d.keys())), list(reversed(d.items())), list(reversed(d))


def c_c5_keys_isdisjoint_and_contains(x):
    d = {"a": 1, "b": 2}
    return x + d.keys().isdisjoint("xyz") + (("a", 1) in d.items()) * 2 + (("a", 2) in d.items()) * 4


def c_c5_values_not_setlike(x):
    d = {"a": 1}
    try:
        d.values() | {1}
        out = 0
    except TypeError:
        out = 1
    return x + out, d.values() == d.values()


def c_c5_view_len_after_mutation(x):
    d = {"a": 1}
    ks = d.keys()
    it = d.items()
    d["b"] = 2
    del d["a"]
    return x + len(ks), list(ks), list(it)


# -- dict | and |= with other mappings ----------------------------------------------------------------------------
def c_c5_dict_or_ordereddict_types(x):
    a = {"a": 1}
    o = OrderedDict(b=2)
    r1 = a | o
    r2 = o | a
    dd = defaultdict(int, c=3)
    r3 = dd | a
    r4 = a | dd
    return x + len(r1), type(r1).__name__, type(r2).__name__, type(r3).__name__, type(r4).__name__


def c_c5_dict_ior_with_pairs_and_mappingproxy(x):
    d = {"a": 1}
    d |= [("b", 2)]
    d |= types.MappingProxyType({"c": 3})
    try:
        d | [("z", 0)]
        ok = 0
    except TypeError:
        ok = 1
    return x + len(d) + ok, d


def c_c5_dict_or_userdict(x):
    u = UserDict(a=1)
    r1 = {"b": 2} | u
    r2 = u | {"b": 2}
    return x + len(r1), type(r1).__name__, type(r2).__name__, dict(r2)


# -- OrderedDict ----------------------------------------------------------------------------------------------------
def c_c5_ordereddict_eq_order_sensitive(x):
    a = OrderedDict([("a", 1), ("b", 2)])
    b = OrderedDict([("b", 2), ("a", 1)])
    return x + (a == b) + (a == dict(b)) * 2 + (dict(a) == b) * 4 + (a != b) * 8


def c_c5_ordereddict_popitem_first_and_move(x):
    d = OrderedDict.fromkeys("abcd", 0)
    d.move_to_end("b")
    k1, _ = d.popitem(last=False)
    d.move_to_end("d", last=False)
    k2, _ = d.popitem()
    return x + len(d), k1, k2, list(d)


def c_c5_ordereddict_popitem_empty(x):
    d = OrderedDict()
    try:
        d.popitem(last=False)
    except KeyError as e:
        return x + 1, e.args
    return x


def c_c5_ordereddict_reversed_items_values(x):
    d = OrderedDict(a=1, b=2)
    d["c"] = 3
    return x + sum(reversed(d.values())), list(reversed(d.items())), list(reversed(d.keys()))


# -- UserDict / UserList / UserString ------------------------------------------------------------------------------
class _DefaultUser(UserDict):
    def __missing__(self, key):
        return 0


def c_c5_userdict_missing_and_contains(x):
    u = _DefaultUser(a=1)
    return x + u["a"] + u["zz"], "zz" in u, len(u), u.get("zz", 5)


def c_c5_userlist_ops(x):
    u = UserList([3, 1, 2])
    u.sort(reverse=True)
    v = u + [0]
    w = [9] + u
    u *= 2
    return x + len(u), type(v).__name__, type(w).__name__, list(u), u[1:3], u == [3, 2, 1, 3, 2, 1]


def c_c5_userstring_ops(x):
    s = UserString("Hello")
    t = s.upper() + "!"
    return x + len(t), str(t), type(t).__name__, "ell" in s, s[1:3], s == "Hello"


# -- MappingProxyType ------------------------------------------------------------------------------------------------
def c_c5_mappingproxy_reads(x):
    src = {"a": 1, "b": 2}
    p = types.MappingProxyType(src)
    src["c"] = 3
    return x + p["a"] + len(p), sorted(p), p.get("z", 0), "c" in p, dict(p.items())


def c_c5_mappingproxy_immutable(x):
    p = types.MappingProxyType({"a": 1})
    try:
        p["b"] = 2
    except TypeError:
        return x + 1
    return x


def c_c5_mappingproxy_copy_and_or(x):
    p = types.MappingProxyType({"a": 1})
    c = p.copy()
    c["b"] = 2
    r = p | {"z": 0}
    return x + len(c), type(c).__name__, type(r).__name__, len(p)


# -- sorting -------------------------------------------------------------------------------------------------------------
def c_c5_sort_key_reverse_stable(x):
    items = [("b", 2), ("a", 2), ("c", 1), ("d", 3)]
    items.sort(key=lambda p: p[1], reverse=True)
    return x + items[0][1], items


def c_c5_sorted_tuples_with_tensors_by_const(x):
    pairs = [(2, x * 2), (0, x), (1, x + 1)]
    ordered = sorted(pairs, key=lambda p: p[0])
    return ordered[0][1] + ordered[2][1], [p[0] for p in ordered]


def c_c5_sort_mixed_raises_keeps_order(x):
    vals = [3, "a", 1]
    try:
        vals.sort()
    except TypeError:
        return x + 1, vals
    return x, vals


def c_c5_sort_mixed_numbers(x):
    vals = [3, 1.5, True, -2, 0.0]
    vals.sort(key=abs, reverse=True)
    return x + vals[0], vals, sorted([2, 1.0, False])


# -- slice assignment / deletion / repeat -----------------------------------------------------------------------------
def c_c5_slice_assign_step(x):
    a = list(range(8))
    a[::2] = [x, x, x, x]
    del a[1::3]
    a[1:1] = ["ins"]
    b = list(range(5))
    b[3:0:-1] = "xyz"
    return a[0] + a[2], len(a), b


def c_c5_list_mul_aliases(x):
    rows = [[0]] * 3
    rows[0].append(1)
    z = [x] * 2
    return z[0] + z[1] + len(rows[2]), rows, [1, 2] * 0, 2 * [7]


# -- comparisons of containers holding tensors -------------------------------------------------------------------------
def c_c5_list_eq_same_tensor_identity(x):
    a = [x, 1]
    b = [x, 1]
    return x + (a == b), (x,) == (x,), [x] != [x]


def c_c5_tuple_lt_decided_by_const(x):
    return x + ((1, x) < (2, x)), (1, 2, x) > (1, 1, x)


# -- copy / deepcopy ----------------------------------------------------------------------------------------------------
def c_c5_deepcopy_nested(x):
    src = {"a": [1, [2, 3]], "b": (4, [5])}
    d = copy.deepcopy(src)
    d["a"][1].append(9)
    d["b"][1].append(6)
    return x + len(src["a"][1]) + len(src["b"][1]), d


def c_c5_deepcopy_shared_ref(x):
    inner = [1]
    src = [inner, inner]
    d = copy.deepcopy(src)
    d[0].append(2)
    return x + len(d[1]), d[0] is d[1], src


def c_c5_copy_of_subclasses(x):
    m = _Missing(a=1)
    c = copy.copy(m)
    o = copy.copy(OrderedDict(a=1, b=2))
    dd = copy.copy(defaultdict(list))
    dd["k"].append(1)
    return x + len(c), type(c).__name__, type(o).__name__, type(dd).__name__, dict(dd)


def c_c5_deepcopy_sets_and_frozensets(x):
    s = {1, frozenset([2, 3])}
    d = copy.deepcopy(s)
    d.add(4)
    return x + len(d) - len(s), frozenset([2, 3]) in d


# -- fromkeys / setdefault chains ----------------------------------------------------------------------------------------
def c_c5_fromkeys_shared_value(x):
    d = dict.fromkeys(["a", "b"], [])
    d["a"].append(1)
    o = OrderedDict.fromkeys("xy")
    return x + len(d["b"]), d, type(o).__name__, list(o.items())


def c_c5_setdefault_chains(x):
    tree = {}
    tree.setdefault("a", {}).setdefault("b", []).append(1)
    tree.setdefault("a", {}).setdefault("b", []).append(2)
    tree.setdefault("c", {})["d"] = 3
    return x + len(tree["a"]["b"]), tree


# -- mutation during iteration ----------------------------------------------------------------------------------------
def c_c5_dict_grow_during_iter_raises(x):
    d = {"a": 1}
    try:
        for k in d:
            d[k + "x"] = 0
    except RuntimeError as e:
        return x + 1, str(e), len(d)
    return x, len(d)


def c_c5_dict_values_mutate_during_iter_raises(x):
    d = {"a": 1, "b": 2}
    try:
        for v in d.values():
            d.pop("b", None)
    except RuntimeError:
        return x + 1, d
    return x, d


def c_c5_set_mutate_during_iter_raises(x):
    s = {1, 2, 3}
    try:
        for v in s:
            s.discard(v)
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def c_c5_dict_change_value_during_iter_ok(x):
    d = {"a": 1, "b": 2}
    for k in d:
        d[k] = d[k] * 2
    return x + sum(d.values())


def c_c5_list_append_during_iter_bounded(x):
    a = [1, 2]
    for v in a:
        if v < 4:
            a.append(v + 2)
    return x + len(a), a


# -- tensors as dict keys / set members -----------------------------------------------------------------------------------
def c_c5_tensor_keys_by_identity(x):
    y = x + 1
    d = {x: "x", y: "y"}
    s = {x, y, x}
    return d[x], d[y], len(s), x in d, (x + 0) in d


def c_c5_tensor_key_pop_and_setdefault(x):
    y = x * 2
    d = {}
    d.setdefault(x, []).append(1)
    d.setdefault(x, []).append(2)
    v = d.pop(y, None)
    return x + len(d[x]), v


# -- defaultdict / Counter edges ------------------------------------------------------------------------------------------
def c_c5_defaultdict_missing_direct(x):
    d = defaultdict(lambda: 5)
    v = d.__missing__("k")
    return x + v, dict(d), d.default_factory()


def c_c5_counter_update_from_dict_and_total(x):
    c = collections.Counter(a=1)
    c.update({"a": 2, "b": 1})
    c.subtract(["a"])
    return x + c["a"], c.total(), sorted(c.elements()), c + collections.Counter(b=-5)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
