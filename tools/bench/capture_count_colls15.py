"""Round 15's container and function programs, for ``capture_count.py --only colls15``: written afresh after the
ideas of PyTorch's test/dynamo/test_sets.py, test_dicts.py, test_list.py and the first half of
test_functions.py, going after what the earlier container areas leave out: hashing counted by user ``__hash__``
(containers reuse stored hashes), unhashable and set-valued keys for ``remove``/``discard``, ``frozenset.copy``
identity, subclass ``copy`` result types, unbound set/dict/list methods called on subclasses, ``torch.utils.
_ordered_set.OrderedSet`` algebra, and sort/compare corner cases. Each runs over one tensor.
"""

# ruff: noqa: RUF005 (the spellings ruff would rewrite are the constructs)
from __future__ import annotations

import operator
from collections import OrderedDict, defaultdict

from torch.utils._ordered_set import OrderedSet


class _HashCounting(int):
    def __init__(self, *args):
        self.hashes = 0

    def __hash__(self):
        self.hashes += 1
        return int.__hash__(self)


def _hashes(keys):
    return sum(k.hashes for k in keys)


def c_colls15_set_from_dict_reuses_hashes(x):
    d = dict.fromkeys(map(_HashCounting, range(4)))
    counts = [_hashes(d)]
    s = set(d)
    counts.append(_hashes(d))
    fs = frozenset(d)
    counts.append(_hashes(d))
    dict.fromkeys(s)
    counts.append(_hashes(d))
    return x + len(s) + len(fs), counts


def c_colls15_hash_counted_by_lookup(x):
    keys = [_HashCounting(i) for i in range(3)]
    d = {k: i for i, k in enumerate(keys)}
    before = _hashes(keys)
    _ = keys[1] in d
    after = _hashes(keys)
    return x * d[keys[2]], before, after


def c_colls15_remove_unhashable_raises_type_error(x):
    s = set("abc")
    out = []
    for op in (s.remove, s.discard):
        try:
            op([])
        except TypeError:
            out.append("type")
        except KeyError:
            out.append("key")
    return x + len(out), out


def c_colls15_discard_set_key_twice(x):
    s = {frozenset("ab"), "c"}
    s.discard(set("ab"))
    s.discard(set("ab"))
    try:
        s.remove(set("zz"))
        hit = 0
    except KeyError:
        hit = 1
    return x + len(s) + hit, sorted(s)


def c_colls15_frozenset_copy_identity(x):
    p = frozenset("abc")
    same = p.copy() is p
    same2 = frozenset.copy(p) is p
    q = frozenset(p)
    return x + same + same2, q is p


class _FS(frozenset):
    pass


class _S(set):
    pass


def c_colls15_frozenset_subclass_copy_is_base(x):
    p = _FS("abc")
    c = p.copy()
    return x + len(c), type(c) is frozenset, c is p, type(p | p) is frozenset, type(_S("ab") - {"a"}) is set


def c_colls15_unbound_set_dunders(x):
    p, q = set("abc"), frozenset("bef")
    return (x + len(set.__sub__(p, q)), sorted(frozenset.__or__(q, p)), sorted(set.__and__(p, q)),
            sorted(set.__xor__(p, q)), set.__le__(p, p), frozenset.__gt__(q, frozenset("b")))


def c_colls15_set_dunder_with_non_set_not_implemented(x):
    p = set("ab")
    r = set.__sub__(p, [1])
    try:
        p - 1
        err = False
    except TypeError:
        err = True
    return x + err, r is NotImplemented


def c_colls15_set_methods_arity_errors(x):
    p = set("abc")
    errs = []
    for fn, args in ((p.copy, (1,)), (p.issubset, ()), (p.issuperset, (1,)), (p.isdisjoint, ([[]],)),
                     (p.symmetric_difference, ())):
        try:
            fn(*args)
            errs.append(None)
        except TypeError:
            errs.append("TypeError")
    return x + len(errs), errs


class _AddPlusOne(set):
    def add(self, item):
        return super().add(item + 1)

    def contains(self, item):
        return True


def c_colls15_set_subclass_add_override(x):
    s = _AddPlusOne([1, 2])
    s.add(3)
    set.add(s, 10)
    return x + len(s), sorted(s), s.contains(99), s == {1, 2, 4, 10}


def c_colls15_set_eq_across_kinds(x):
    p = frozenset("abc")
    eqs = [p == C("abc") for C in (set, frozenset, _S, _FS)]
    nes = [p != C("abe") for C in (set, frozenset, dict.fromkeys, str, list, tuple)]
    return x + sum(eqs), eqs, nes, p.__eq__(set("abc")), set.__eq__(set("abc"), 1)


def c_colls15_frozenset_in_frozenset(x):
    inner = _FS("abc")
    outer = frozenset([frozenset("abc")])
    return x + (inner in outer), set("abc") in outer, hash(frozenset()) == hash(frozenset())


def c_colls15_unbound_set_mutators_on_subclass(x):
    p, q = _S("abc"), _S("bef")
    _S.intersection_update(p, q)
    r = _S("abc")
    _S.symmetric_difference_update(r, q)
    t = _S("abc")
    set.difference_update(t, "a", "b")
    u = _S("a")
    popped = _S.pop(u)
    return x + len(p), sorted(p), sorted(r), sorted(t), popped, len(u)


def c_colls15_set_update_many(x):
    p, q, r = set("abc"), set("bc"), set("bef")
    p.update(q, r, "xy", {"z": 1})
    inter = set("abcd").intersection("bcd", ["c", "d"], {"d": 0})
    return x + len(p), sorted(p), sorted(inter)


def c_colls15_ordered_set_algebra(x):
    s1 = OrderedSet(["a", "b", "c", "d"])
    s2 = OrderedSet(["d", "c", "b", "q"])
    return (x + len(s1), list(s1.intersection(s2)), list(s1.union(s2)), list(s1.difference(s2)),
            sorted(s1.symmetric_difference(s2)), type(s1 | s2).__name__, list(s1.copy()))


def c_colls15_ordered_set_from_iterables(x):
    a = OrderedSet(v.upper() for v in "cab")
    b = OrderedSet(map(str, [3, 1, 2]))
    c = OrderedSet(range(3))
    c.add(1)
    c.discard(0)
    return x + len(c), list(a), list(b), list(c), 2 in c


def c_colls15_set_iter_length_hint_views(x):
    out = []
    for obj in ({1, 2, 3}, {1: "a", 2: "b"}, {1: "a"}.values(), {3: 4}.items()):
        it = iter(obj)
        out.append(it.__length_hint__())
        next(it)
        out.append(it.__length_hint__())
    return x.sin(), out


def c_colls15_isdisjoint_stops_early(x):
    seen = []

    def gen():
        for v in (1, 2, 3):
            seen.append(v)
            yield v

    r = {2, 4}.isdisjoint(gen())
    return (x.sin() if len(seen) == 2 else x.cos()), r, seen


# -- dicts ----------------------------------------------------------------------------------------------------
class _MissingDict(dict):
    def __missing__(self, key):
        return key * 2


def c_colls15_dict_missing_via_subscript_only(x):
    d = _MissingDict(a=1)
    return x + d["zz"].__len__(), d.get("zz"), "zz" in d, d["a"], len(d)


def c_colls15_dict_unbound_methods_on_subclass(x):
    class D(dict):
        pass

    d = D(a=x, b=x + 1)
    dict.__setitem__(d, "c", x + 2)
    dict.update(d, z=x)
    v = dict.pop(d, "a")
    keys = list(dict.keys(d))
    return v + dict.__getitem__(d, "c"), keys, dict.__contains__(d, "b"), dict.__len__(d)


def c_colls15_dict_or_ior_with_subclass(x):
    od = OrderedDict(a=1)
    dd = defaultdict(int, b=2)
    r1 = od | {"c": 3}
    r2 = dd | od
    r3 = {"q": 0} | dd
    od |= [("d", 4)]
    return x + len(r1) + len(r2), type(r1).__name__, type(r2).__name__, type(r3).__name__, list(od.items())


def c_colls15_dict_fromkeys_subclass_and_value(x):
    class D(dict):
        pass

    d = D.fromkeys("ab", x)
    od = OrderedDict.fromkeys([3, 1, 2])
    return d["a"] + 1, type(d).__name__, list(od), dict.fromkeys(range(0)) == {}


def c_colls15_dict_popitem_order_and_empty(x):
    d = {"a": 1, "b": 2, "c": 3}
    first = d.popitem()
    od = OrderedDict(a=1, b=2)
    last = od.popitem(last=False)
    try:
        {}.popitem()
        err = None
    except KeyError as e:
        err = str(e)
    return x + len(d), first, last, err


def c_colls15_dict_items_tuple_unpack_compare(x):
    d = {"a": 1, "b": 2}
    it = iter(d.items())
    k, v = next(it)
    eq = d.items() == {("a", 1), ("b", 2)}
    return x * v, k, eq, d.keys() == {"a", "b"}, d.values() == d.values()


def c_colls15_dict_setdefault_on_tensor_key(x):
    d = {}
    d.setdefault(x, []).append(1)
    d.setdefault(x, []).append(2)
    return x + len(d[x]), len(d)


def c_colls15_dict_copy_independent(x):
    d = {"a": [x], "b": x + 1}
    c = d.copy()
    c["a"].append(x * 2)
    c["b"] = x * 0
    return d["b"] + c["b"], len(d["a"]), c is d, dict(d) == d


# -- lists ----------------------------------------------------------------------------------------------------
def c_colls15_list_sort_unbound_with_key(x):
    items = [3, -1, 2, -5]
    list.sort(items, key=abs, reverse=True)
    s = sorted(items, key=lambda v: (v % 2, v))
    return x + items[0], items, s


def c_colls15_list_index_start_stop(x):
    items = [1, 2, 1, 3, 1]
    try:
        items.index(3, 0, 2)
        miss = False
    except ValueError:
        miss = True
    return x + items.index(1, 1), items.index(1, -2), miss, items.count(1)


def c_colls15_list_compare_lexicographic(x):
    a, b = [1, 2, 3], [1, 2, 4]
    return x + (a < b), a <= a, [1, 2] < [1, 2, 0], a == (1, 2, 3), list.__lt__(a, b), [] > []


def c_colls15_list_inplace_ops_alias(x):
    a = [x]
    b = a
    a += (x + 1,)
    a *= 2
    c = a * 0
    return sum(b), a is b, len(b), c


def c_colls15_list_slice_assign_step(x):
    a = list(range(6))
    a[::2] = [x, x, x]
    try:
        a[::2] = [1]
        err = False
    except ValueError:
        err = True
    del a[1::2]
    return a[0] + a[1], len(a), err


def c_colls15_list_subclass_unbound_and_type(x):
    class L(list):
        pass

    v = L([x, x + 1])
    list.append(v, x + 2)
    w = v + [x]
    s = v[:1]
    return sum(v), type(w).__name__, type(s).__name__, len(w), list.__len__(v)


def c_colls15_list_reverse_iter_mutation(x):
    a = [1, 2, 3]
    out = []
    for v in reversed(a):
        out.append(v)
        if v == 3:
            a.pop()
    return x + len(out), out


# -- functions ------------------------------------------------------------------------------------------------
def c_colls15_operator_methodcaller_kw(x):
    f = operator.methodcaller("split", ",", maxsplit=1)
    g = operator.itemgetter(slice(1, None))
    return x + len(f("a,b,c")), f("a,b,c"), g([1, 2, 3])


def c_colls15_function_defaults_kwdefaults(x):
    def f(a, b=2, *, c=3):
        return a + b + c

    d = f.__defaults__
    kd = dict(f.__kwdefaults__)
    return f(x), f(x, c=0), d, kd, f.__code__.co_argcount, f.__code__.co_kwonlyargcount


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
