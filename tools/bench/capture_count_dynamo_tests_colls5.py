"""Containers modelled on PyTorch's test/dynamo/test_dicts.py, test_list.py, test_sets.py and the CPython-derived
tests under test/dynamo/cpython/3_13/ (test_dict.py, test_list.py, test_set.py, test_ordered_dict.py,
test_userdict.py, test_userlist.py, test_defaultdict.py, test_collections.py), for ``capture_count.py --only
dynamo_tests_colls5``. They go after what the earlier container areas leave out: subclasses of dict, set and list
whose overridden dunders the builtins must (or must not) call, user objects with their own ``__hash__``/``__eq__``
as set members and dict keys, view algebra with reversed views, ``|`` of dicts with other mappings,
``MappingProxyType``, ``UserString``, ``copy.deepcopy`` of nested containers, sorts over mixed keys, and
containers mutated while iterated. Each is written afresh over one tensor.
"""

# ruff: noqa: B007, B018, B033, RUF005, RUF024, RUF059, UP031 (the spellings ruff would rewrite are the constructs)
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




# -- batch 2: more subclass overrides, views, UserDict/UserList/UserString, sorting, slices ---------------------------
class _CountingList(list):
    def __init__(self, *args):
        super().__init__(*args)
        self.gets = 0

    def __getitem__(self, index):
        self.gets += 1
        return super().__getitem__(index)


def c_c5_list_subclass_getitem_not_used_by_iteration(x):
    a = _CountingList([1, 2, 3])
    total = sum(a) + a[0]
    first, *rest = a
    return x + total, a.gets, rest, sorted(a, reverse=True), list(a) == [1, 2, 3]


class _LenList(list):
    def __len__(self):
        return 42


def c_c5_list_subclass_len_override(x):
    a = _LenList([1, 2])
    return x + len(a), bool(a), list(a), a[-1]


class _ReversedList(list):
    def __iter__(self):
        return iter(list.__reversed__(self))


def c_c5_list_subclass_iter_override_in_builtins(x):
    a = _ReversedList([1, 2, 3])
    return x + a[0], list(a), tuple(a), [v for v in a], sorted(a), min(a), list(zip(a, "abc"))


class _SetLogged(set):
    def add(self, item):
        super().add(item * 10)


def c_c5_set_subclass_add_not_used_by_update(x):
    s = _SetLogged()
    s.add(1)
    s.update([2])
    s |= {3}
    return x + len(s), sorted(s), type(s | {4}).__name__, type(s.copy()).__name__


class _EqSet(set):
    def __eq__(self, other):
        return len(self) == len(other)

    __hash__ = None


def c_c5_set_subclass_eq_override(x):
    a = _EqSet([1, 2])
    return x + (a == {8, 9}) + ({8, 9} == a) * 2, a != {1}


class _Reg(dict):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.log = []

    def __setitem__(self, key, value):
        self.log.append(key)
        super().__setitem__(key, value)

    def __delitem__(self, key):
        self.log.append("-" + key)
        super().__delitem__(key)


def c_c5_dict_subclass_setitem_delitem_log(x):
    r = _Reg(a=1)
    r["b"] = 2
    r["a"] += 5
    del r["b"]
    r.pop("a")
    return x + len(r), r.log, dict(r)


class _Ordered(collections.OrderedDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        self.move_to_end(key)


def c_c5_ordereddict_subclass_lru_like(x):
    o = _Ordered()
    for k in "abca":
        o[k] = len(o)
    if len(o) > 2:
        o.popitem(last=False)
    return x + len(o), list(o.items())


def c_c5_dict_views_of_subclass(x):
    d = _Missing(a=1, b=2)
    return x + len(d.keys() & {"a"}), sorted(d.items()), list(reversed(d.values())), type(d.keys()).__name__


def c_c5_items_view_set_ops_with_list(x):
    d = {"a": 1, "b": 2}
    return (x + len(d.items() & [("a", 1), ("z", 0)]), sorted(d.items() - [("b", 2)]),
            sorted(d.keys() | ["c"]), d.keys() <= {"a", "b"})


def c_c5_view_of_unhashable_values(x):
    d = {"a": [1], "b": [2]}
    try:
        d.items() & {("a", 1)}
        r = 0
    except TypeError:
        r = 1
    return x + r, ("a", [1]) in d.items()


def c_c5_dict_equality_nested_and_tensor_values(x):
    a = {"k": [1, {"z": (2, 3)}]}
    b = {"k": [1, {"z": (2, 3)}]}
    c = {"t": x}
    return x + (a == b) + (c == {"t": x}) * 2, a != {"k": [1]}


def c_c5_userdict_subclass_setitem_and_copy(x):
    class Upper(UserDict):
        def __setitem__(self, key, value):
            super().__setitem__(key.upper(), value)

    u = Upper(a=1)
    u.update({"b": 2})
    v = u.copy()
    v["c"] = 3
    return x + len(v), sorted(u), sorted(v), type(v).__name__


def c_c5_userlist_slicing_and_extend(x):
    u = UserList([x, x * 2, x * 3])
    part = u[::2]
    u.extend(UserList([x]))
    u[1:3] = [x + 1]
    return part[0] + u[1] + len(u), type(part).__name__


def c_c5_userstring_methods_and_compare(x):
    s = UserString("a,b,c")
    parts = s.split(",")
    t = s.replace(",", "-")
    return x + len(parts), parts, str(t), s < "b", s * 2, "a" + s, t.startswith("a-")


def c_c5_mappingproxy_of_class_dict(x):
    class Cfg:
        scale = 3
        name = "n"

    p = Cfg.__dict__
    return x * p["scale"], "name" in p, type(p).__name__, p.get("missing", 0)


def c_c5_sort_tuples_reverse_key_with_ties(x):
    rows = [(1, "b"), (2, "a"), (1, "a"), (2, "b")]
    rows.sort(key=lambda r: r[0], reverse=True)
    by_two = sorted(rows, key=lambda r: (r[1], -r[0]))
    return x + rows[0][0], rows, by_two


def c_c5_sorted_tensor_pairs_by_name(x):
    named = {"b": x * 2, "a": x, "c": x + 1}
    ordered = sorted(named.items())
    return ordered[0][1] + ordered[-1][1], [k for k, _ in ordered]


def c_c5_sort_key_none_and_bool_reverse(x):
    a = [3, 1, 2]
    a.sort(key=None, reverse=False)
    b = sorted("bca", reverse=1)
    return x + a[0], a, b


def c_c5_slice_assign_from_self_and_generator(x):
    a = [1, 2, 3, 4]
    a[1:3] = a
    b = [0, 0, 0]
    b[::-1] = (i * 2 for i in range(3))
    c = list(range(6))
    del c[::-2]
    c[len(c):] = [9]
    return x + len(a), a, b, c


def c_c5_slice_assign_wrong_length_raises(x):
    a = [1, 2, 3, 4]
    try:
        a[::2] = [1, 2, 3]
    except ValueError as e:
        return x + 1, str(e), a
    return x


def c_c5_tuple_list_compare_mixed(x):
    a = [1, 2, 3]
    return (x + (a == (1, 2, 3)) + ([1, 2] < [1, 2, 0]) * 2 + ((1, 2) <= (1, 2)) * 4,
            [1, [2, 3]] < [1, [2, 4]], (1, "a") < (1, "b"))


def c_c5_compare_lists_with_tensors_identity_then_eq(x):
    a = [x, 1]
    try:
        r = a < [x, 2]
    except RuntimeError:
        r = None
    return x + 1, r, [x] == [x], (x, 1) != (x, 1)


def c_c5_fromkeys_on_subclasses_and_iterables(x):
    d = _Missing.fromkeys("ab", 0)
    o = OrderedDict.fromkeys(range(3))
    c = collections.Counter.fromkeys if hasattr(collections.Counter, "fromkeys") else None
    dd = defaultdict.fromkeys(["k"], 1)
    return x + len(d), type(d).__name__, list(o), type(dd).__name__, dd.default_factory, c is not None


def c_c5_setdefault_returns_existing_and_counts(x):
    d = {}
    groups = {}
    for word in ["ab", "ac", "bd", "ae"]:
        groups.setdefault(word[0], []).append(word)
        d[word[0]] = d.setdefault(word[0], 0) + 1
    return x + d["a"], groups, d


def c_c5_list_mutated_during_sort_key_raises(x):
    a = [3, 1, 2]

    def key(v):
        if len(a) < 5:  # (bounded: torch.compile's sort does not empty the list and would grow it forever)
            a.append(0)
        return v

    try:
        a.sort(key=key)
    except ValueError as e:
        return x + 1, str(e), a
    return x, a


def c_c5_dict_pop_during_items_iteration_raises(x):
    d = {"a": 1, "b": 2, "c": 3}
    seen = []
    try:
        for k, v in d.items():
            seen.append(k)
            if k == "a":
                del d["c"]
    except RuntimeError as e:
        return x + len(seen), str(e), seen
    return x, seen


def c_c5_dict_replace_key_same_size_during_iter_raises(x):
    d = {"a": 1}
    try:
        for k in d:
            del d[k]
            d["z"] = 1
    except RuntimeError as e:
        return x + 1, str(e)
    return x, d


def c_c5_set_add_existing_during_iter_ok(x):
    s = {1, 2}
    for v in s:
        s.add(1)
    return x + len(s)


def c_c5_tensor_dict_keys_update_and_in(x):
    y = x.view(3)
    z = x.clone()
    d = {x: 1}
    d[y] = 2
    d[z] = 3
    return x + len(d), d[x], y in d, z in d, [k is x for k in d]


def c_c5_tensor_set_members_remove(x):
    y = x + 1
    s = {x, y}
    s.remove(x)
    try:
        s.remove(x)
    except KeyError:
        pass
    return next(iter(s)) + len(s)


def c_c5_counter_of_tuples_and_most_common(x):
    c = collections.Counter([(1, 2), (1, 2), (3, 4)])
    c2 = collections.Counter(a=3, b=1) - collections.Counter(a=1, b=2)
    return x + c[(1, 2)], c.most_common(1), dict(c2), +collections.Counter(a=-1, b=2), c2 | collections.Counter(c=1)


def c_c5_chainmap_writes_first(x):
    base = {"a": 1, "b": 2}
    top = {}
    cm = collections.ChainMap(top, base)
    cm["a"] = 10
    del cm["a"]
    cm["c"] = 3
    child = cm.new_child({"z": 0})
    return x + cm["a"] + len(child), top, dict(cm), list(child.maps[0]), child.parents["c"]


_P = collections.namedtuple("_P", "a b")


def c_c5_namedtuple_in_set_and_sort(x):
    P = _P
    ps = {P(1, 2), P(1, 2), P(0, 5)}
    ordered = sorted(ps)
    return x + len(ps), ordered, ordered[0]._replace(b=9), P(1, 2) == (1, 2)


def c_c5_frozenset_of_frozensets_and_subset(x):
    a = frozenset({frozenset({1}), frozenset({1, 2})})
    b = {frozenset([1])}
    return x + (b < a) + (frozenset([1]) in a) * 2, sorted(len(s) for s in a | b), a.issuperset(b)


def c_c5_list_multiply_nested_then_mutate_one(x):
    grid = [[0] * 2 for _ in range(2)]
    bad = [[0] * 2] * 2
    grid[0][0] = 1
    bad[0][0] = 1
    return x + grid[1][0] + bad[1][0] * 2, grid, bad


# -- batch 3: ABC-based containers, user objects in lists, unpacking subclasses -----------------------------------------
class _ReadOnlyMap(collections.abc.Mapping):
    def __init__(self, data):
        self._data = dict(data)

    def __getitem__(self, key):
        return self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def c_c5_abc_mapping_mixins(x):
    m = _ReadOnlyMap({"a": 1, "b": 2})
    return (x + m["a"] + len(m), dict(m), {**m}, sorted(m.items()), "b" in m, m.get("z", 5), m == {"a": 1, "b": 2},
            list(m.keys()), list(m.values()))


class _Store(collections.abc.MutableMapping):
    def __init__(self):
        self._data = {}

    def __getitem__(self, key):
        return self._data[key]

    def __setitem__(self, key, value):
        self._data[key] = value

    def __delitem__(self, key):
        del self._data[key]

    def __iter__(self):
        return iter(self._data)

    def __len__(self):
        return len(self._data)


def c_c5_abc_mutable_mapping_mixins(x):
    s = _Store()
    s.update(a=1, b=2)
    s.setdefault("c", 3)
    v = s.pop("a")
    k, w = s.popitem()
    return x + v + w + len(s), k, dict(s), s.get("b")


class _Bag(collections.abc.Set):
    def __init__(self, items):
        self._items = list(dict.fromkeys(items))

    def __contains__(self, item):
        return item in self._items

    def __iter__(self):
        return iter(self._items)

    def __len__(self):
        return len(self._items)


def c_c5_abc_set_mixins(x):
    a = _Bag([1, 2, 3])
    b = _Bag([2, 3, 4])
    both = a & b
    return x + len(both), sorted(both), sorted(a | b), sorted(a - b), a <= _Bag([1, 2, 3, 5]), a.isdisjoint([9])


class _Seq(collections.abc.MutableSequence):
    def __init__(self):
        self._items = []

    def __getitem__(self, i):
        return self._items[i]

    def __setitem__(self, i, v):
        self._items[i] = v

    def __delitem__(self, i):
        del self._items[i]

    def __len__(self):
        return len(self._items)

    def insert(self, i, v):
        self._items.insert(i, v)


def c_c5_abc_mutable_sequence_mixins(x):
    s = _Seq()
    s.append(1)
    s.extend([2, 3])
    s.reverse()
    s += [4]
    v = s.pop()
    s.remove(2)
    return x + v + len(s), list(s), s.index(1), 3 in s, list(reversed(s)), s.count(3)


class _Item:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, _Item) and self.v == other.v

    def __lt__(self, other):
        return self.v < other.v

    __hash__ = None


def c_c5_list_methods_with_user_eq(x):
    items = [_Item(3), _Item(1), _Item(2), _Item(1)]
    items.remove(_Item(1))
    i = items.index(_Item(2))
    c = items.count(_Item(1))
    present = _Item(3) in items
    items.sort()
    return x + i + c, present, [it.v for it in items], [_Item(1)] == [_Item(1)], [_Item(1)] < [_Item(2)]


def c_c5_unhashable_user_object_in_set_raises(x):
    try:
        {_Item(1)}
    except TypeError as e:
        return x + 1, str(e)
    return x


def c_c5_sorted_by_dict_get_and_max(x):
    d = {"a": 3, "b": 1, "c": 2}
    return x + d[max(d, key=d.get)], sorted(d, key=d.get), min(d.items(), key=lambda kv: kv[1])


def c_c5_sort_key_with_none_raises(x):
    rows = [(1, None), (1, 2)]
    try:
        rows.sort()
    except TypeError as e:
        return x + 1, str(e), rows
    return x, rows


class _KeysOnly(dict):
    def keys(self):
        return ["a"]


def c_c5_unpack_dict_subclass_keys_override(x):
    d = _KeysOnly(a=1, b=2)
    merged = {**d}
    called = dict(**d)
    return x + len(merged) + len(called), merged, called


def c_c5_dict_comprehension_duplicate_keys(x):
    d = {k: i for i, k in enumerate("abab")}
    e = dict([("a", 1), ("b", 2), ("a", 3)])
    f = {"a": 1, "b": 2, "a": 3}  # noqa: F601
    return x + d["a"], list(d.items()), list(e.items()), list(f.items())


def c_c5_dict_pop_does_not_call_missing(x):
    d = _Missing(a=1)
    v = d.pop("zz", 7)
    try:
        d.pop("yy")
    except KeyError as e:
        err = e.args
    return x + v, err, dict(d), d.get("qq"), "qq" in d


def c_c5_ordereddict_vs_subclass_equality(x):
    a = OrderedDict(a=1, b=2)
    b = _Ordered()
    b["b"] = 2
    b["a"] = 1
    return x + (a == b) + (dict(a) == b) * 2, list(b), a.keys() == b.keys(), list(a.keys() - {"a"})


def c_c5_defaultdict_factory_raises(x):
    def boom():
        raise ValueError("no default")

    d = defaultdict(boom)
    try:
        d["k"]
    except ValueError as e:
        return x + 1, str(e), len(d)
    return x


def c_c5_userdict_contains_override(x):
    class Lower(UserDict):
        def __contains__(self, key):
            return str(key).lower() in self.data

    u = Lower(a=1)
    return x + ("A" in u), u.get("a", 9), "a" in u.keys(), "A" in u.data


def c_c5_userlist_sort_key_and_reverse(x):
    u = UserList(["bb", "a", "ccc"])
    u.sort(key=len, reverse=True)
    r = list(reversed(u))
    return x + len(u[0]), list(u), r, u.index("a"), u.count("a")


def c_c5_userstring_as_key_and_format(x):
    s = UserString("k")
    d = {s: 1}
    return x + d[UserString("k")], "k" in d, s.center(5, "*"), "%s!" % s, f"{s}", s.zfill(3)


def c_c5_mappingproxy_of_ordered_and_eq(x):
    o = OrderedDict(b=1, a=2)
    p = types.MappingProxyType(o)
    return x + len(p), list(p), p == {"a": 2, "b": 1}, list(p.items()), list(reversed(p))


def c_c5_tuple_slices_and_steps(x):
    t = tuple(range(8))
    a = [x, 1, 2, 3]
    del a[-1:]
    return a[0] + len(a), t[::-3], t[6:1:-2], t[-100:2], t[::1] is t


def c_c5_list_mul_bool_and_negative(x):
    a = [1, 2]
    return x + len(a * True), a * False, a * -3, (0,) * 2


def c_c5_tuple_add_list_raises(x):
    try:
        (1, 2) + [3]
    except TypeError as e:
        return x + 1, str(e)
    return x


def c_c5_tensor_in_list_multi_element_raises(x):
    y = x.clone()
    try:
        r = y in [x]
    except RuntimeError:
        r = None
    return x + 1, r, x in [x], x in (x, 1)


def c_c5_set_ops_with_views_and_generators(x):
    d = {"a": 1, "b": 2}
    s = {"a", "z"}
    return (x + len(s.union(d, (k for k in "q"))), sorted(s.intersection(d.keys())), sorted(s - d.keys()),
            s.issubset(d.keys() | {"z"}), sorted(set(d.items())))


def c_c5_dict_from_zip_of_user_keys(x):
    ks = [_HashedByName("a"), _HashedByName("b"), _HashedByName("a")]
    d = dict(zip(ks, range(3)))
    return x + d[_HashedByName("a")], len(d), [k.tag for k in d]


class _HashedByName:
    _n = 0

    def __init__(self, name):
        self.name = name
        self.tag = name + "!"

    def __hash__(self):
        return hash(self.name)

    def __eq__(self, other):
        return isinstance(other, _HashedByName) and other.name == self.name

    def __lt__(self, other):
        return self.name < other.name


def c_c5_user_keys_sorted_and_set_algebra(x):
    a = {_HashedByName(n) for n in "abc"}
    b = {_HashedByName(n) for n in "bcd"}
    return x + len(a & b), sorted(k.name for k in a ^ b), [k.name for k in sorted(a | b)], a >= {_HashedByName("a")}


def c_c5_user_keys_dict_views(x):
    d = {_HashedByName("a"): 1, _HashedByName("b"): 2}
    e = {_HashedByName("b"): 2}
    return x + len(d.keys() & e.keys()), len(d.items() - e.items()), _HashedByName("a") in d.keys(), d.keys() >= e.keys()


# -- batch 4: iteration while mutating, deep copies of objects, equality with tensor values ------------------------------
def c_c5_list_remove_during_iteration_skips(x):
    a = [1, 2, 2, 3]
    seen = []
    for v in a:
        seen.append(v)
        if v == 2:
            a.remove(v)
    return x + len(a), a, seen


def c_c5_ordereddict_mutated_during_iteration_raises(x):
    o = OrderedDict(a=1, b=2)
    try:
        for k in o:
            o["z" + k] = 0
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def c_c5_ordereddict_move_during_iteration_raises(x):
    o = OrderedDict(a=1, b=2)
    try:
        for k in o:
            o.move_to_end(k)
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def c_c5_deque_mutated_during_iteration_raises(x):
    q = collections.deque([1, 2])
    try:
        for v in q:
            if len(q) < 10:  # (bounded: torch.compile's loop over a deque does not raise and would run forever)
                q.append(v)
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def c_c5_dict_items_of_ordereddict_reversed(x):
    o = OrderedDict(a=1, b=2, c=3)
    o.move_to_end("a")
    return x + 1, list(reversed(o.items())), list(reversed(o.values())), next(reversed(o))


def c_c5_deepcopy_objects_and_tensors(x):
    class Box:
        def __init__(self, v):
            self.v = v

    box = Box([1, 2])
    src = {"box": box, "again": box, "t": x, "pair": (box, 3)}
    d = copy.deepcopy(src)
    d["box"].v.append(3)
    return (d["t"] + len(box.v), d["again"] is d["box"], d["pair"][0] is d["box"], d["box"] is box, len(d["box"].v),
            d["t"] is x)


def c_c5_dict_eq_tensor_values_raises(x):
    try:
        r = {"t": x} == {"t": x.clone()}
    except RuntimeError:
        r = None
    return x + 1, r, {"t": x} == {"t": x}


def c_c5_fromkeys_with_user_keys_and_copy(x):
    d = dict.fromkeys([_HashedByName("a"), _HashedByName("a"), _HashedByName("b")], 0)
    e = d.copy()
    e[_HashedByName("a")] += 1
    return x + len(e) + e[_HashedByName("a")], d[_HashedByName("a")], [k.tag for k in e]


def c_c5_setdefault_with_user_keys(x):
    d = {}
    for name in "abca":
        d.setdefault(_HashedByName(name), []).append(name)
    return x + len(d), sorted(len(v) for v in d.values())


def c_c5_set_comprehension_of_user_keys_and_frozenset(x):
    s = frozenset(_HashedByName(n) for n in "aab")
    return x + len(s), _HashedByName("a") in s, len(s | {_HashedByName("c")})


def c_c5_list_insert_during_reversed_iteration(x):
    a = [1, 2, 3]
    out = []
    for v in reversed(a):
        out.append(v)
        if v == 3:
            a.insert(0, 0)
    return x + len(out), out, a


def c_c5_dict_keys_view_after_clear_and_refill(x):
    d = {"a": 1}
    k = d.keys()
    d.clear()
    d["b"] = 2
    return x + len(k), list(k), "a" in k


def c_c5_nested_default_and_counter_arith(x):
    tree = defaultdict(lambda: defaultdict(int))
    tree["a"]["x"] += 1
    tree["a"]["y"] += 2
    tree["b"]["x"] += 3
    c = collections.Counter({"a": 2}) & collections.Counter({"a": 1, "b": 1})
    return x + tree["a"]["y"], {k: dict(v) for k, v in tree.items()}, dict(c), len(tree)



CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
