"""Round 15's list and tuple programs (see ``capture_count_colls15.py``), after test/dynamo/test_list.py: which
side's ``__eq__`` ``list.remove`` calls, a list seen empty (and mutations thrown away) while it sorts,
``cmp_to_key`` and ``__lt__``-only sort keys, tuple subclasses with their own ``__new__``, and in-place
operators on a global list. Each runs over one tensor.
"""

# ruff: noqa: RUF005 (the concatenations are the constructs)
from __future__ import annotations

from functools import cmp_to_key


class _AlwaysEq:
    def __eq__(self, other):
        return True

    __hash__ = None


class _NeverEq:
    def __eq__(self, other):
        return False

    __hash__ = None


def c_colls15_list_remove_item_richcompare_side(x):
    p = [_AlwaysEq()]
    p.remove(_NeverEq())
    item = _NeverEq()
    q = [item]
    q.remove(item)
    return x + len(p) + len(q), _NeverEq() in [_AlwaysEq()], [_NeverEq()].count(_AlwaysEq())


def c_colls15_list_empty_while_sorting(x):
    p = [1, 3, 2]
    sizes = []

    def key(v):
        sizes.append(len(p))
        return v

    p.sort(key=key)
    return x + p[0], p, sizes


def c_colls15_list_modified_during_sort(x):
    p = [1, 3, 2]

    def cmp(a, b):
        p.append(4)
        return (a > b) - (a < b)

    try:
        p.sort(key=cmp_to_key(cmp))
        err = None
    except ValueError as e:
        err = str(e)
    return x + len(p), p, err


class _ModKey:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v % 3 < other.v % 3


def c_colls15_sort_key_class_lt_only(x):
    p = [3, 4, 5, 6]
    p.sort(key=_ModKey)
    q = sorted([3, 4, 5], key=_ModKey, reverse=True)
    return x + p[0], p, q, max([4, 5], key=_ModKey)


def c_colls15_sort_cmp_to_key_reverse(x):
    def revcmp(a, b):
        return (a < b) - (a > b)

    p = [1, 3, 2]
    p.sort(key=cmp_to_key(revcmp))
    first = list(p)
    p.sort(key=cmp_to_key(revcmp), reverse=True)
    return x * p[-1], first, p


class _TupleNew(tuple):
    def __new__(cls, arg, extra=None):
        self = super().__new__(cls, arg)
        self.extra = extra
        return self


class _TupleNewChild(_TupleNew):
    pass


class _PlainT(tuple):
    pass


class _PlainTChild(_PlainT):
    pass


def c_colls15_tuple_subclass_new_super(x):
    t = _TupleNew([1, 2], extra=5)
    g = _TupleNewChild([1, 2, 3])
    return x + t.extra + len(g), type(t).__name__, tuple(t), g.extra, type(g).__name__, t == (1, 2)


def c_colls15_tuple_new_unbound_multilevel(x):
    t = _PlainTChild.__new__(_PlainTChild, [1, 2, 3])
    u = tuple.__new__(tuple, [4])
    try:
        tuple.__new__(tuple, [1], extra=1)
        err = False
    except TypeError:
        err = True
    return x + len(t), type(t).__name__, tuple(t), u, err


_GLOBAL_LIST = ["a", "b"]


def c_colls15_global_list_inplace_dunders(x):
    global _GLOBAL_LIST
    _GLOBAL_LIST = ["a", "b"]
    _GLOBAL_LIST *= 2
    _GLOBAL_LIST.__imul__(2)
    _GLOBAL_LIST += ["c"]
    _GLOBAL_LIST.__iadd__("de")
    del _GLOBAL_LIST[0]
    return x.sin(), list(_GLOBAL_LIST)


def c_colls15_tuple_dunder_errors(x):
    p = (1, 2, 3)
    errs = []
    for f, a in ((p.__mul__, (2.2,)), (p.__add__, ({1: 2},)), (p.__getitem__, (10,)), (p.count, ()),
                 (p.__contains__, (1, 2))):
        try:
            f(*a)
            errs.append(None)
        except (TypeError, IndexError) as e:
            errs.append(type(e).__name__)
    return x + len(errs), errs, p.__mul__(2), p.__iter__().__iter__().__next__()


def c_colls15_list_mul_holds_same_object(x):
    tree = (1, 2)
    r = [tree] * 2
    rows = [[0]] * 2
    rows[0].append(x)
    return rows[1][1] + 1, r[0] is r[1], len(rows[1])


def c_colls15_list_setitem_slice_and_dunder(x):
    p = list("abc")
    p.__setitem__(2, "a")
    q = list(p)
    p[0:] = []
    q.__delitem__(slice(0, 2))
    return x + len(p) + len(q), p, q


_GLOBAL_TUPLE = (1, 2)
_GLOBAL_FROZEN = frozenset("xy")


def c_colls15_tuple_identity_kept(x):
    t = (x, 1)
    e = ()
    u = t
    u += ()
    return (x + 1, tuple(t) is t, () + t is t, t + () is t, t * 1 is t, True * t is t, e * 3 is e, u is t,
            tuple(_GLOBAL_TUPLE) is _GLOBAL_TUPLE, _GLOBAL_TUPLE + () is _GLOBAL_TUPLE, t * 2 is t, list(t) is t)


def c_colls15_frozenset_identity_kept(x):
    e = frozenset()
    return x + 1, frozenset(_GLOBAL_FROZEN) is _GLOBAL_FROZEN, frozenset() is e, frozenset(e) is e, set(e) is e


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
