"""Round 11's container programs (a part of ``capture_count_gens11.py``): written afresh after the ideas of
PyTorch's test/dynamo/test_dicts.py, test_list.py and test_sets.py: view set algebra, OrderedDict / defaultdict /
Counter methods, subclasses of dict, list, set and frozenset, tensors as set elements, slice assignment, sorting
with keys, and mutation during iteration. Each runs over one tensor.
"""

from __future__ import annotations

from collections import Counter, OrderedDict, defaultdict


# -- dict views --------------------------------------------------------------------------------------------------
def c_gens11_keys_view_algebra(x):
    a = {"p": 1, "q": 2, "r": 3}
    b = {"q": 0, "s": 0}
    return (x + len(a.keys() & b.keys()), sorted(a.keys() | b), sorted(a.keys() - ["r"]), sorted(a.keys() ^ b.keys()),
            a.keys() >= {"p"}, a.keys().isdisjoint(["z"]))


def c_gens11_items_view_algebra(x):
    a = {"p": 1, "q": 2}
    b = {"p": 1, "q": 3}
    same = a.items() & b.items()
    diff = a.items() - b.items()
    return x + len(same), sorted(same), sorted(diff), ("p", 1) in a.items(), ("q", 1) in a.items()


def c_gens11_live_view_after_mutation(x):
    d = {"a": x, "b": x + 1}
    ks, vs = d.keys(), d.values()
    d["c"] = x + 2
    del d["a"]
    total = x * 0
    for v in vs:
        total = total + v
    return total, list(ks), len(vs), list(reversed(ks))


def c_gens11_dict_changed_size_raises(x):
    d = {i: x * i for i in range(3)}
    try:
        for k in d:
            d[k + 10] = x
        err = None
    except RuntimeError as e:
        err = str(e)
    return len(d), err


def c_gens11_set_changed_size_raises(x):
    s = {1, 2, 3}
    try:
        for v in s:
            s.add(v * 10)
        err = None
    except RuntimeError as e:
        err = str(e)
    return x + len(s), err


# -- OrderedDict / defaultdict / Counter -------------------------------------------------------------------------
def c_gens11_ordereddict_popitem_front_back(x):
    od = OrderedDict((k, x * i) for i, k in enumerate("abcd"))
    first = od.popitem(last=False)
    last = od.popitem()
    od.move_to_end("b", last=True)
    return first, last, list(od.items())


def c_gens11_ordereddict_eq_order_sensitive(x):
    a = OrderedDict(a=1, b=2)
    b = OrderedDict(b=2, a=1)
    return x + 1, a == b, a == dict(b), dict(a) == dict(b), list((a | {"c": 3}).keys())


def c_gens11_defaultdict_factory_swap(x):
    d = defaultdict(lambda: x * 0)
    d["a"] += 1
    d.default_factory = list
    d["b"].append(2)
    d.default_factory = None
    try:
        d["c"]
        missing = None
    except KeyError as e:
        missing = e.args[0]
    return d["a"], d["b"], missing, sorted(d)


def c_gens11_counter_arith(x):
    c1 = Counter(a=3, b=1, c=0)
    c2 = Counter(a=1, b=2, d=-1)
    return (x * (c1 + c2)["a"], dict(c1 - c2), dict(c1 & c2), dict(c1 | c2), dict(+c2), dict(-c2),
            sorted(c1.elements()))


def c_gens11_counter_update_subtract_total(x):
    c = Counter("hello")
    c.update({"l": -1, "z": 2})
    c.subtract("lo")
    return x + c.total(), sorted(c.items()), c.most_common(2)


def c_gens11_counter_of_shapes(x):
    ts = [x, x.view(1, 3), x + 1, x.view(3, 1), x * 2]
    c = Counter(tuple(t.shape) for t in ts)
    return x * len(c), sorted(c.items())


# -- subclasses ----------------------------------------------------------------------------------------------------
class _LowerDict(dict):
    def __setitem__(self, key, value):
        super().__setitem__(key.lower(), value)

    def __getitem__(self, key):
        return super().__getitem__(key.lower())

    def __missing__(self, key):
        return -1


def c_gens11_dict_subclass_normalizes_keys(x):
    d = _LowerDict()
    d["A"] = x
    d["b"] = x + 1
    return d["a"] + d["B"], d.get("A"), "a" in d, sorted(d)


class _AuditList(list):
    def append(self, item):
        super().append(item)
        super().append(item)

    def total(self):
        return sum(self[1:], self[0])


def c_gens11_list_subclass_append_override(x):
    lst = _AuditList([x])
    lst.append(x + 1)
    lst.extend([x * 2])
    sliced = lst[1:3]
    return lst.total(), len(lst), type(sliced).__name__, type(lst + [x]).__name__  # noqa: RUF005


class _Tags(set):
    def add(self, item):
        super().add(item.upper())

    def tagged(self, word):
        return word.upper() in self


def c_gens11_set_subclass_add_override(x):
    s = _Tags(["a"])
    s.add("b")
    s |= {"c"}
    union = s | {"d"}
    return x + len(s), s.tagged("b"), sorted(s), type(union).__name__


class _Frozen(frozenset):
    def doubled(self):
        return _Frozen(v * 2 for v in self)


def c_gens11_frozenset_subclass_ops(x):
    f = _Frozen([1, 2, 3])
    g = f.doubled()
    both = f & g
    copied = f.copy()
    return x * len(both), sorted(both), type(both).__name__, type(copied).__name__, type(g).__name__


# -- sets and frozensets -----------------------------------------------------------------------------------------
def c_gens11_frozenset_dict_keys(x):
    d = {frozenset("ab"): x, frozenset("c"): x + 1}
    key = frozenset(["b", "a"])
    fs = frozenset("abc") - {"a"}
    return d[key] + d[frozenset({"c"})], type(fs).__name__, sorted(fs), {"a", "b"} == frozenset("ab")


def c_gens11_set_of_tensors_identity(x):
    a, b = x, x + 1
    s = {a, b}
    s.discard(a)
    s.add(b)
    in_a, in_b = a in s, b in s
    total = x * 0
    for t in s:
        total = total + t
    return total, len(s), in_a, in_b


def c_gens11_set_algebra_compare(x):
    s, t = {1, 2, 3}, {2, 3}
    checks = (t < s, t <= s, s > t, s >= s, s < s, s.issuperset(i for i in (1, 2)), t.issubset(range(5)))
    return x + sum(checks), checks, sorted(s - t), sorted(s ^ {3, 9})


def c_gens11_set_update_many_iterables(x):
    s = set()
    s.update("ab", [1, 2], (i * i for i in range(3)), {"k": 0})
    s.intersection_update({"a", 1, 4, "k", 0}, range(-1, 10), [0, 1, 4, "zz"])
    s.difference_update([4])
    return x + len(s), sorted(map(str, s))


def c_gens11_set_remove_unhashable(x):
    s = {frozenset("ab"), 1}
    out = []
    s.discard({"a", "b"})
    out.append(len(s))
    try:
        s.remove([])
    except TypeError as e:
        out.append(type(e).__name__)
    return x + len(out), out


# -- lists: slices, sort, mutation ---------------------------------------------------------------------------------
def c_gens11_slice_assign_resize(x):
    lst = [x, x + 1, x + 2, x + 3]
    lst[1:3] = [x * 10]
    lst[len(lst):] = [x - 1, x - 2]
    lst[:0] = [x * 0]
    return lst, len(lst)


def c_gens11_extended_slice_assign_mismatch(x):
    lst = list(range(6))
    lst[::2] = [x, x + 1, x + 2]
    try:
        lst[1::2] = [0]
        err = None
    except ValueError as e:
        err = str(e)
    del lst[::3]
    return lst, err


def c_gens11_sort_with_key_stable(x):
    rows = [("b", 2), ("a", 2), ("c", 1), ("d", 3), ("e", 1)]
    rows.sort(key=lambda r: r[1])
    by_desc = sorted(rows, key=lambda r: (-r[1], r[0]))
    rev = sorted(rows, key=lambda r: r[1], reverse=True)
    return x + rows[0][1], rows, by_desc, rev


def c_gens11_sort_tensors_by_shape_key(x):
    ts = [x.view(3, 1), x, x.view(1, 1, 3), x[:2]]
    ts.sort(key=lambda t: (t.dim(), t.numel()))
    return [t.shape for t in ts], ts[0] * 2


def c_gens11_list_remove_index_errors(x):
    lst = [1, 2, 3, 2]
    out = [lst.index(2, 2), lst.count(2)]
    for bad in (lambda: lst.remove(9), lambda: lst.index(1, 1), lambda: lst.pop(10)):
        try:
            bad()
        except (ValueError, IndexError) as e:
            out.append(type(e).__name__)
    return x + len(out), out


def c_gens11_list_inplace_aliasing(x):
    a = [x]
    b = a
    a += [x + 1]
    a *= 2
    c = a + [x]  # noqa: RUF005
    return len(b), b is a, len(c), c[-1] + b[1]


def c_gens11_mutate_list_while_iterating(x):
    lst = [1, 2, 3, 4]
    seen = []
    for v in lst:
        seen.append(v)
        if v == 2:
            lst.remove(v)
    return x + sum(seen), seen, lst


# -- comparisons that call user __eq__, dunder calls on dict -------------------------------------------------------
class _CmpBoom(Exception):
    pass


class _BadEq:
    def __eq__(self, other):
        raise _CmpBoom

    def __hash__(self):
        return 1


def c_gens11_items_view_order_compare(x):
    d1, d2 = {"a": 1, "b": 2}, {"a": 1, "b": 2, "c": 3}
    d3 = {"a": 1, "b": 99}
    return (x + 1, d1.items() <= d2.items(), d1.items() < d2.items(), d2.items() >= d1.items(),
            d1.items() <= d3.items(), d1.items() == d3.items(), d1.keys() < d2.keys())


def c_gens11_items_view_value_eq_raises(x):
    d1, d2 = {1: _BadEq()}, {1: _BadEq()}
    hits = 0
    for op in (lambda: d1.items() == d2.items(), lambda: d1.items() <= d2.items(), lambda: d1 == d2):
        try:
            op()
        except _CmpBoom:
            hits += 1
    return x * hits, hits


def c_gens11_dict_key_eq_raises(x):
    d1 = {_BadEq(): 1}
    try:
        d1 == {1: 1}  # noqa: B015
        out = "equal-checked"
    except _CmpBoom:
        out = "raised"
    return x + 1, out, len(d1)


def c_gens11_dict_ior_from_generator(x):
    d = {"a": x}

    def pairs():
        yield "b", x + 1
        yield "a", x * 3

    r = d.__ior__(pairs())
    r2 = dict.__ior__(d, {"c": x}.items())
    try:
        dict.__ior__(d, 1)
        err = None
    except TypeError:
        err = "TypeError"
    return r is d, r2 is d, sorted(d), d["a"] + d["b"] + d["c"], err


def c_gens11_dict_unbound_method_calls(x):
    d = {"a": 1, "b": 2}
    dict.update(d, c=3)
    got = (dict.get(d, "c"), dict.pop(d, "a"), dict.setdefault(d, "z", 9), dict.copy(d) == d,
           dict.__contains__(d, "b"), dict.__len__(d), list(dict.keys(d)))
    errors = []
    for bad in (lambda: d.update(1), lambda: dict.fromkeys(1, 2), lambda: d.setdefault([[]])):
        try:
            bad()
        except TypeError:
            errors.append("T")
    return x * len(d), got, errors


def c_gens11_dict_keys_custom_objects(x):
    class Key:
        def __init__(self, v):
            self.v = v

        def __hash__(self):
            return hash(self.v % 3)

        def __eq__(self, other):
            return isinstance(other, Key) and self.v % 3 == other.v % 3

    d = {Key(1): x, Key(2): x + 1}
    d[Key(4)] = x * 10
    return d[Key(7)] + d[Key(5)], len(d), Key(10) in d, Key(0) in d


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
