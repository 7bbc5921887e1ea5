"""collections' and heapq's polyfills natively against the real ones, on the same inputs: the
polyfilled C methods run on real instances, and deque's stand-in class op by op beside a real deque."""

from __future__ import annotations

import collections
import heapq

import pytest
import torch
from harness import check

from loom_symbolic import polyfills
from loom_symbolic.polyfills import collections as pc


def outcome(fn, *args, **kwargs):
    try:
        return ("value", fn(*args, **kwargs))
    except Exception as exc:
        return ("raised", type(exc), str(exc))


def method(cls, name):
    found = polyfills.method_replacement(cls, name)
    assert found is not None, f"{cls.__name__}.{name} has no polyfill"
    return found[0]


def test_defaultdict_methods_match():
    real = collections.defaultdict(list, a=[1])
    made = collections.defaultdict.__new__(collections.defaultdict)
    method(collections.defaultdict, "__init__")(made, list, a=[1])
    assert made == real and made.default_factory is list
    assert method(collections.defaultdict, "__missing__")(made, "k") == real["k"] and made == real
    copied = method(collections.defaultdict, "copy")(made)
    assert type(copied) is collections.defaultdict and copied == real.copy() and copied.default_factory is list
    assert outcome(method(collections.defaultdict, "__init__"), made, 3) == outcome(collections.defaultdict, 3)
    empty = collections.defaultdict()
    assert outcome(method(collections.defaultdict, "__missing__"), empty, "z") == outcome(empty.__getitem__, "z")
    fromkeys = method(collections.defaultdict, "fromkeys")
    assert fromkeys(collections.defaultdict, "ab", 2) == collections.defaultdict.fromkeys("ab", 2)


@pytest.mark.parametrize("key, last", [("a", True), ("a", False), ("c", True), ("c", False), ("z", True)])
def test_ordereddict_move_to_end_matches(key, last):
    # The polyfills work on the dict layer, as the translator models an OrderedDict (natively, the
    # dict layer of a real OrderedDict is not its order): a plain dict keeps the same order.
    real, made = collections.OrderedDict(a=1, b=2, c=3), dict(a=1, b=2, c=3)
    assert outcome(method(collections.OrderedDict, "move_to_end"), made, key, last) == outcome(real.move_to_end, key, last)
    assert list(made.items()) == list(real.items())


@pytest.mark.parametrize("last", [True, False])
def test_ordereddict_popitem_and_copy_match(last):
    real, made = collections.OrderedDict(a=1, b=2), dict(a=1, b=2)
    assert method(collections.OrderedDict, "popitem")(made, last) == real.popitem(last)
    assert list(made.items()) == list(real.items())
    assert outcome(method(collections.OrderedDict, "popitem"), {}) == outcome(collections.OrderedDict().popitem)
    assert list(method(collections.OrderedDict, "copy")(real).items()) == list(real.copy().items())


def test_count_elements_matches():
    real, made = collections.Counter(a=1), collections.Counter(a=1)
    collections._count_elements(real, "abracadabra")
    polyfills.replacement_for(collections._count_elements)(made, "abracadabra")
    assert made == real


@pytest.mark.parametrize("n", [-1, 0, 1, 2, 10])
def test_heapq_selection_matches(n):
    data = [(3, "a"), (1, "b"), (3, "c"), (2, "d")]
    for name in ("nlargest", "nsmallest"):
        real, polyfill = getattr(heapq, name), polyfills.replacement_for(getattr(heapq, name))
        assert polyfill(n, data, key=lambda p: p[0]) == real(n, data, key=lambda p: p[0])
        assert polyfill(n, [p[0] for p in data]) == real(n, [p[0] for p in data])


DEQUE_OPS = [
    ("append", 5), ("appendleft", 6), ("extend", [7, 8, 9]), ("extendleft", [1, 2]), ("pop",), ("popleft",),
    ("rotate", 2), ("rotate", -3), ("rotate",), ("reverse",), ("count", 7), ("index", 7), ("index", 42),
    ("remove", 8), ("remove", 42), ("insert", 1, 0), ("__getitem__", 0), ("__getitem__", -1), ("__getitem__", 99),
    ("__setitem__", 0, 3), ("__delitem__", 0), ("__contains__", 9), ("__len__",), ("clear",),
    ("pop",), ("popleft",),
]


@pytest.mark.parametrize("maxlen", [None, 0, 2, 4])
def test_deque_stand_in_matches_op_by_op(maxlen):
    real = collections.deque([1, 2, 3], maxlen)
    made = pc.deque([1, 2, 3], maxlen)
    assert made.maxlen == real.maxlen
    for name, *args in DEQUE_OPS:
        assert outcome(getattr(made, name), *args) == outcome(getattr(real, name), *args), (name, args)
        assert list(made) == list(real) and list(reversed(made)) == list(reversed(real)), (name, args)
        assert bool(made) == bool(real)
        rebuilt = pc.deque_to_real(made)
        assert type(rebuilt) is collections.deque and rebuilt == real and rebuilt.maxlen == real.maxlen


def test_deque_bad_arguments_and_mutation_while_iterating_match():
    assert outcome(pc.deque, [], -1) == outcome(collections.deque, [], -1)
    assert outcome(pc.deque, [], "x")[:2] == outcome(collections.deque, [], "x")[:2]

    def grow(q):
        for item in q:
            q.append(item)

    assert outcome(grow, pc.deque([1])) == outcome(grow, collections.deque([1]))


class _Tracked(collections.OrderedDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)


def ordereddict_fromkeys_in_the_trace(x):
    od = collections.OrderedDict.fromkeys("abc", 1)
    first = od.popitem(last=False)
    tracked = _Tracked.fromkeys("xy", 3)
    return x + len(od), od, first, tracked, type(tracked).__name__


def test_ordereddict_fromkeys_is_traced():
    check(ordereddict_fromkeys_in_the_trace, torch.ones(3))
