"""More of ``capture_count_dynamo_tests_colls5`` (same sources: PyTorch's test_dicts.py, test_list.py, test_sets.py
and the CPython-derived container tests): subclasses that override ``__getitem__``, ``__len__``, ``__iter__``,
``__eq__`` or ``__setitem__`` as the builtins must (or must not) call them, ABC-based containers, view algebra with
lists, sorting with ties and keys that do not compare, slice assignment, containers changed while iterated (lists,
dicts, OrderedDicts, deques, ``reversed``), deep copies of objects, and user objects with their own hash as keys.
Each is written afresh over one tensor.
"""

# ruff: noqa: B007, RUF059 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import collections
from collections import OrderedDict, UserDict, UserList, UserString, defaultdict

from capture_count_dynamo_tests_colls5 import _Missing


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


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_") and fn.__module__ == __name__]
