"""Sets, lists and tuples modelled on PyTorch's test/dynamo/test_sets.py and test_list.py, for ``capture_count.py
--only dynamo_tests_colls3``: sets looked up by sets, ``remove``/``discard`` errors, ``frozenset.copy`` identity,
arity errors of set and tuple methods, unbound set methods, set subclasses with their own ``add``, equality
across set kinds, ``OrderedSet``, length hints, ``__new__`` chains of list and tuple subclasses, slice assignment
errors, ``index`` messages across sequence kinds, in-place operators on a global list, and sets built from
dicts without hashing again. Each is written afresh over one tensor.
"""

from __future__ import annotations


class _MySet(set):
    pass


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


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
