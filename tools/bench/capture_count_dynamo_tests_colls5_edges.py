"""The edges of ``capture_count_dynamo_tests_colls5`` (same sources: PyTorch's test_dicts.py, test_list.py,
test_sets.py and the CPython-derived container tests): containers built on ``collections.abc`` mixins, user
objects in lists and as keys with their own hash, unpacking of dict subclasses, ``%`` of objects, containers
changed while iterated (lists, OrderedDicts, deques, ``reversed``) and deep copies of objects. Each is written
afresh over one tensor.
"""

# ruff: noqa: B018, F601, UP031 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import collections
import copy
import types
from collections import OrderedDict, UserDict, UserList, UserString, defaultdict

from capture_count_dynamo_tests_colls5 import _Missing
from capture_count_dynamo_tests_colls5_more import _Ordered


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
    f = {"a": 1, "b": 2, "a": 3}
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



CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
