"""Round 11's list and tuple programs (a part of ``capture_count_gens11.py``): written afresh after the ideas of
PyTorch's test/dynamo/test_list.py: ``remove``/``index``/``count`` asking the element's own ``__eq__`` (identity
first), sorting with ``cmp_to_key`` and with a key class defining ``__lt__``, a key that watches the list while it
is sorted, a list changed by its comparison, ``__setitem__``/``__delitem__`` with slices and their errors, and
list/tuple subclasses with ``__new__``. Each runs over one tensor.
"""

from __future__ import annotations

import collections
import functools


class _AlwaysEq:
    def __eq__(self, other):
        return True


class _NeverEq:
    def __eq__(self, other):
        return False


class _ModKey:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v % 3 < other.v % 3


def c_gens11_remove_asks_element_eq(x):
    p = [_AlwaysEq()]
    p.remove(_NeverEq())
    item = _NeverEq()
    q = [item, 1]
    q.remove(item)
    return x + len(p) + len(q), len(p), q


def c_gens11_index_count_user_eq(x):
    items = [_NeverEq(), 2, _AlwaysEq()]
    return x + 1, items.index(5), items.count(7), _NeverEq() in items, (1, 2).count(_AlwaysEq())


def c_gens11_index_not_found_messages(x):
    out = []
    for seq in ([1, 2], (1, 2), collections.deque([1, 2]), [_NeverEq()]):
        try:
            seq.index("z")
        except ValueError as e:
            out.append(str(e))
    return x + len(out), out


def c_gens11_sort_cmp_to_key_reverse(x):
    def revcmp(a, b):
        return (a < b) - (a > b)

    p = [1, 3, 2, 5]
    p.sort(key=functools.cmp_to_key(revcmp))
    first = list(p)
    p.sort(key=functools.cmp_to_key(revcmp), reverse=True)
    return x + p[0], first, p


def c_gens11_sort_key_class_lt(x):
    p = [3, 4, 5, 6, 7]
    p.sort(key=_ModKey)
    asc = list(p)
    p.sort(key=_ModKey, reverse=True)
    return x * len(p), asc, p


def c_gens11_sort_key_sees_empty_list(x):
    p = [3, 1, 2]
    sizes = []

    def key(v):
        sizes.append(len(p))
        return v

    p.sort(key=key)
    return x + 1, p, sizes


def c_gens11_sort_modified_during_sort(x):
    p = [1, 3, 2]

    def meddle(a, b):
        p.append(9)
        return (a > b) - (a < b)

    try:
        p.sort(key=functools.cmp_to_key(meddle))
        err = None
    except ValueError as e:
        err = str(e)
    return x + len(p), p, err


def c_gens11_setitem_slice_errors(x):
    p = list("abcdef")
    errs = []
    for bad in (lambda: p.__setitem__(slice(1, 5, 2), 1), lambda: p.__delitem__(slice(1, 1, 0)),
                lambda: p.__delitem__(1.5), lambda: p.__setitem__(slice(0, 4, 2), [1, 2, 3])):
        try:
            bad()
        except (TypeError, ValueError) as e:
            errs.append((type(e).__name__, str(e)))
    p.__delitem__(slice(1, 3))
    p[0:] = p[::-1]
    return x + len(p), p, errs


def c_gens11_imul_iadd_dunders(x):
    p = [x]
    r = p.__imul__(2)
    s = r.__iadd__((x + 1,))
    t = (1, 2).__mul__(2)
    try:
        p.__imul__(2.5)
        err = None
    except TypeError as e:
        err = str(e)
    return len(p), r is p, s is p, t, err, p[-1]


class _ListWithNew(list):
    def __new__(cls, arg, tag=None):
        self = super().__new__(cls)
        self.tag = tag
        return self

    def __init__(self, arg, tag=None):
        super().__init__(arg)


class _TupleWithNew(tuple):
    def __new__(cls, arg, tag=None):
        self = super().__new__(cls, arg)
        self.tag = tag
        return self


def c_gens11_list_tuple_subclass_new(x):
    lst = _ListWithNew([x, x + 1], tag="L")
    tup = _TupleWithNew([1, 2], tag="T")
    bare = list.__new__(list, [1, 2], extra="ignored")
    return lst[1] * tup[1], type(lst).__name__, lst.tag, tup.tag, tuple(tup), bare


def c_gens11_list_mul_shares_items(x):
    row = [0]
    grid = [row] * 3
    grid[0].append(x)
    tree = (1, 2)
    pairs = [tree] * 2
    return len(grid[2]), grid[1][1] + 1, pairs[0] is pairs[1]


def c_gens11_tuple_index_user_eq_missing(x):
    out = []
    for op in (lambda: (1, 2).index(_NeverEq()), lambda: [1].remove(_NeverEq()), lambda: (3,).index(_AlwaysEq())):
        try:
            out.append(op())
        except ValueError as e:
            out.append(str(e))
    return x + len(out), out, _AlwaysEq() in (5,), _NeverEq() not in (5, 6)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
