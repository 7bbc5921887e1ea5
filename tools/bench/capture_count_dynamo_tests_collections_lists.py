"""Lists, tuples and sets modelled on PyTorch's test/dynamo/test_list.py and test_sets.py, for
``capture_count.py --only dynamo_tests`` (with ``capture_count_dynamo_tests_collections.py``): dunder methods
called by name, wrong argument counts, in-place operators on globals, sorting with ``cmp_to_key`` and ``__lt__``
keys, subclasses overriding ``__new__``, set algebra across set types, each written afresh over one tensor.
"""

from __future__ import annotations

import torch


# -- lists and tuples: dunder methods called by name, wrong arguments, sorting -------------------------------
def _type_error(fn, *args):
    try:
        fn(*args)
    except TypeError:
        return 1
    return 0


def c_dt_seq_dunder_calls(x):
    p, q = list("abc"), list("bcd")
    t = tuple("abcab")
    out = [p.__add__(q), t.__mul__(2), p.__eq__(list("abc")), p.__ne__(q), p.__lt__(q), q.__gt__(p),
           p.__le__(q), q.__ge__(p), p.__getitem__(2), p.__contains__("a"), t.count("a"), t.index("b")]
    it = p.__iter__().__iter__()
    return x + len(out), out, next(it)


def c_dt_seq_wrong_arguments(x):
    p = list("abc")
    t = ("a", "b")
    n = _type_error(p.count) + _type_error(t.count, 2, 3) + _type_error(p.index) + _type_error(t.__mul__, 2.5)
    n += _type_error(p.append) + _type_error(p.insert, 1) + _type_error(p.pop, 1, 2) + _type_error(p.extend, 1)
    n += _type_error(p.__add__, {"a": 1}) + _type_error(p.copy, 1) + _type_error(p.__getitem__, 1, 2)
    return x + n, p


def c_dt_list_inplace_dunders(x):
    p = [1, 2, 3]
    r = p.__imul__(2)
    q = list("ab")
    q *= 2
    s = q.__iadd__(["z"])
    q += "cd"
    return x + len(p), r is p, s is q, q, p


def c_dt_list_setitem_delitem_dunders(x):
    p = list("abcdef")
    p.__setitem__(2, "z")
    p.__delitem__(1)
    p.__delitem__(slice(1, 3))
    p[0:] = p[1:]
    errors = 0
    try:
        p.__delitem__(slice(1, 1, 0))
    except ValueError:
        errors += 1
    try:
        p[1:3:2] = 1
    except TypeError:
        errors += 1
    return x + errors, p


def c_dt_list_pop_remove_errors(x):
    p = list("abad")
    first = p.pop()
    p.remove("a")
    errors = []
    for call in (lambda: p.pop(7), lambda: p.remove("x"), lambda: p.index("q")):
        try:
            call()
        except (IndexError, ValueError) as e:
            errors.append(type(e).__name__)
    return x + len(p), first, p, errors


_LISTED = ["a", "b"]


def c_dt_global_list_inplace(x):
    global _LISTED
    _LISTED[:] = ["a", "b"]  # each run starts alike (eager's, then loom's)
    _LISTED *= 2
    _LISTED.__iadd__(["c"])
    del _LISTED[0]
    return x.sin(), list(_LISTED)


class _Always:
    def __eq__(self, other):
        return True


class _Never:
    def __eq__(self, other):
        return False


def c_dt_list_remove_richcompare(x):
    p = [_Always()]
    p.remove(_Never())
    item = _Never()
    q = [item]
    q.remove(item)
    return x + len(p) + len(q)


class _ModKey:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        return self.v % 3 < other.v % 3


def c_dt_list_sort_cmp_to_key_and_lt_key(x):
    import functools

    def backwards(a, b):
        return (a < b) - (a > b)

    p = [1, 3, 2]
    p.sort(key=functools.cmp_to_key(backwards))
    first = list(p)
    p.sort(key=functools.cmp_to_key(backwards), reverse=True)
    q = [3, 4, 5]
    q.sort(key=_ModKey)
    second = list(q)
    q.sort(key=_ModKey, reverse=True)
    return x + p[0], first, p, second, q


def c_dt_list_sort_sees_empty_list(x):
    p = [1, 3, 2]
    sizes = []

    def key(v):
        sizes.append(len(p))
        return v

    p.sort(key=key)
    return x + sum(sizes), p


def c_dt_list_sort_mutated_raises(x):
    import functools

    p = [1, 3, 2]

    def grows(a, b):
        p.append(4)
        return (a > b) - (a < b)

    try:
        p.sort(key=functools.cmp_to_key(grows))
    except ValueError:
        return x + 1, p
    return x, p


class _ListWithNew(list):
    def __new__(cls, arg, extra=None):
        self = super().__new__(cls)
        self.extra = extra
        return self

    def __init__(self, arg, extra=None):
        super().__init__(arg)


class _TupleWithNew(tuple):
    def __new__(cls, arg, extra=None):
        self = super().__new__(cls, arg)
        self.extra = extra
        return self


class _Plain(list):
    pass


class _Grandchild(_Plain):
    pass


def c_dt_list_subclass_new_via_super(x):
    lst = _ListWithNew([1, 2, 3], extra=7)
    return x + lst.extra + sum(lst), list(lst), type(lst) is _ListWithNew


def c_dt_tuple_subclass_new_via_super(x):
    t = _TupleWithNew([1, 2], extra=5)
    return x + t.extra + sum(t), tuple(t), type(t) is _TupleWithNew


def c_dt_builtin_new_direct(x):
    a = list.__new__(list, [1, 2], extra="ignored")
    a.append(3)
    b = tuple.__new__(tuple, [1, 2])
    c = _Grandchild.__new__(_Grandchild, [1, 2])
    return x + len(a) + len(b) + len(c), a, b, type(c) is _Grandchild, _Grandchild([4, 5]) == [4, 5]


def c_dt_index_missing_messages(x):
    import collections

    out = []
    for seq in ([1, 2, 3], (1, 2, 3), collections.deque([1, 2, 3]), [_Never()]):
        try:
            seq.index("z")
        except ValueError as e:
            out.append(str(e))
    return x + len(out), out


def c_dt_list_mul_tuple_items(x):
    pair = (1, 2)
    grid = [pair] * 2
    rows = [[0] * 2 for _ in range(2)]
    rows[0][1] = 5
    return x + grid[1][1] + rows[0][1], grid, rows


# -- sets ----------------------------------------------------------------------------------------------------
class _SetChild(set):
    pass


class _FrozenChild(frozenset):
    pass


class _AddingSet(set):
    def add(self, item):
        return super().add(item + 1)

    def contains(self, item):
        return True


def c_dt_set_subclass_add_override(x):
    s = _AddingSet([1, 2])
    s.add(3)
    return x + len(s), s == {1, 2, 4}, s.contains(9), sorted(s)


def c_dt_set_isdisjoint_generator_counts(x):
    n = [0]

    def gen():
        n[0] += 1
        yield 1
        n[0] += 2
        yield 2
        n[0] += 3
        yield 3

    s = {2, 4, 5}
    s.isdisjoint(gen())
    return x.sin() if n[0] == 3 else x.cos()


def c_dt_iterator_length_hint(x):
    hints = []
    for obj in ({1, 2, 3}, {1: "a", 2: "b"}, {1: "a"}.values(), [1, 2]):
        it = iter(obj)
        hints.append(it.__length_hint__())
        next(it)
        hints.append(it.__length_hint__())
    return x.sin(), hints


def c_dt_set_binops_dunders(x):
    p, q = set("abc"), set("bef")
    out = [p - q, q - p, p | q, p & q, p ^ q, set.__sub__(p, q), set.__or__(p, q), set.__and__(p, q),
           set.__xor__(p, q), p - p, p ^ p]
    try:
        p - 1
    except TypeError:
        out.append("sub")
    return x + len(out), [sorted(v) if isinstance(v, set) else v for v in out]


def c_dt_frozenset_binops_dunders(x):
    p, q = frozenset("abc"), frozenset("bef")
    out = [p - q, p | q, p & q, p ^ q, frozenset.__sub__(p, q), frozenset.__or__(p, q), frozenset.__and__(p, q)]
    return x + len(out), [sorted(v) for v in out], type(p | q).__name__


def c_dt_set_compare_across_types(x):
    p = set("abc")
    eqs = [p == C("abc") for C in (set, frozenset, _SetChild)] + [p == C(p) for C in (set, frozenset, _SetChild)]
    nes = [p != C("abe") for C in (set, frozenset, _SetChild, dict.fromkeys, str, list, tuple)] + [p != 1]
    r = set("ab")
    cmp = [p < p, r < p, p > r, p <= p, r <= p, p >= r, set.__lt__(p, p), set.__ge__(p, p), set.__eq__(p, p),
           set.__ne__(p, r)]
    return x + sum(eqs) + sum(nes), eqs, nes, cmp


def c_dt_frozenset_subclass_ops(x):
    p = _FrozenChild("abc")
    q = frozenset("bc")
    return (x + len(p), q.issubset(p), p.issuperset(q), _FrozenChild.issubset(q, p), p == frozenset("abc"),
            sorted(p - q), "a" in p, _FrozenChild.__contains__(p, "b"), hash(p) == hash(frozenset("abc")))


def c_dt_set_issubset_errors(x):
    p = set("abc")
    n = _type_error(p.issubset) + _type_error(p.issubset, 1) + _type_error(p.issubset, [[]])
    n += _type_error(p.issuperset, 1) + _type_error(p.copy, 1)
    return x + n, set.copy(p) == p, p.copy() is not p


def c_dt_set_in_set_and_iterable(x):
    from collections.abc import Iterable

    item = frozenset("abc")
    container = {frozenset("abc")}
    s = set(["a", "b"])
    return x + (item in container), isinstance(s, Iterable), s.__contains__("a"), set.__contains__(s, "q")


def c_dt_set_from_dict_keys_types(x):
    d = dict.fromkeys(range(4))
    out = []
    for kind in (set, frozenset, _SetChild, _FrozenChild):
        s = kind(d)
        out.append((type(s).__name__, len(s), len(s.difference(d))))
    return x + len(out), out, sorted(dict.fromkeys(set(d))), sorted(dict.fromkeys(frozenset(d)))


def c_dt_set_argument_functions(x, s):
    if torch.nn.functional.relu in s:
        x = x.sin()
    s.discard(torch.nn.functional.relu)
    s.add("more")
    return x, len(s), "more" in s


c_dt_set_argument_functions.extra_args = lambda: ({torch.nn.functional.relu, "hello", torch.sin},)


def c_dt_set_mixed_types_argument(x, s):
    return (x.sin() if "PyTorch" in s else x.cos()), 3.3 in s, len(s)


c_dt_set_mixed_types_argument.extra_args = lambda: ({"PyTorch", 3.3, 1j},)


class _Marker:
    pass


_MARK = _Marker()


def c_dt_set_argument_types_and_objects(x, s):
    return x + (int in s) + (_MARK in s), len(s), s - {float}, s | {str}, s & {_MARK, 1}, _Marker() in s


c_dt_set_argument_types_and_objects.extra_args = lambda: ({int, float, _MARK, 1},)


def c_dt_set_argument_builtins_iterated(x, s):
    s.remove(torch.cos)
    s.update({torch.tan, len})
    for fn in sorted((f for f in s if f is not len), key=lambda f: f.__name__):
        x = fn(x)
    return x, len(s), len in s, s.isdisjoint({abs})


c_dt_set_argument_builtins_iterated.extra_args = lambda: ({torch.sin, torch.cos, abs},)


def c_dt_dict_argument_builtin_keys(x, d):
    d[torch.tan] = 4.0
    del d[torch.cos]
    return x * d[torch.sin] + d[torch.tan], len(d), torch.cos in d, list(d)


c_dt_dict_argument_builtin_keys.extra_args = lambda: ({torch.sin: 2.0, torch.cos: 3.0},)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
