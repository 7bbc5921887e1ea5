"""``collections.deque`` traced through its stand-in (``polyfills/collections.py``) as the C deque behaves:
searches whose comparisons change the deque, iterators made before a change, ``reversed`` and its iterator
type, ``+``/``*`` and their in-place forms, ``rotate``'s argument, a deque holding itself in its repr, and
``list.index`` whose comparison shortens the list. Each runs in one graph with eager's answer."""

from __future__ import annotations

import collections
from collections import deque

import pytest
import torch
from harness import check

from loom_symbolic.polyfills import collections as pc


class _Clearing:
    """Empties ``target`` when compared, answering ``result``."""

    def __init__(self, target, result):
        self.target = target
        self.result = result

    def __eq__(self, other):
        self.target.clear()
        return self.result

    __hash__ = None


def _search_mutated(x, search):
    d = deque(range(6))
    d[3] = _Clearing(d, False)
    try:
        found = search(d)
    except (RuntimeError, IndexError, ValueError) as exc:
        return x + len(d), type(exc).__name__, str(exc)
    return x, "found", found


@pytest.mark.parametrize("search", [lambda d: d.count(9), lambda d: 9 in d, lambda d: d.index(9),
                                    lambda d: d.remove(9)], ids=["count", "contains", "index", "remove"])
def test_search_whose_comparison_clears_the_deque_raises(search):
    # count/in/index raise RuntimeError and remove IndexError, as the C loops check the deque's state
    check(lambda x: _search_mutated(x + 1, search), torch.ones(3))


def test_list_index_whose_comparison_empties_the_list():
    def fn(x):
        lst = [1, 2, 3, 4]
        lst[1] = _Clearing(lst, False)
        try:
            lst.index(9)
        except ValueError as exc:
            return x + len(lst), str(exc)
        return x, "found"

    check(fn, torch.ones(3))


def test_iterators_made_before_a_change_raise():
    def fn(x):
        outcomes = []
        for make, change in ((iter, "pop"), (iter, "append"), (reversed, "appendleft")):
            d = deque([] if change == "append" else [1, 2, 3])
            it = make(d)
            if make is reversed:
                outcomes.append(next(it))
            getattr(d, change)(*([] if change == "pop" else [0]))
            try:
                outcomes.append(next(it))
            except RuntimeError as exc:
                outcomes.append(str(exc))
        return x * len(outcomes), outcomes

    check(fn, torch.ones(3))


def test_reversed_iterator_type_is_the_real_one_and_callable():
    def fn(x):
        d = deque("abcd")
        klass = type(reversed(d))
        forward = type(iter(d))
        return x + 1, list(klass(deque("xyz"))), list(forward(deque("xyz"), 1)), klass.__name__

    check(fn, torch.ones(3))


def test_iterator_live_at_a_graph_break_is_not_rebuilt():
    def fn(x):
        d = deque([1, 2, 3])
        it = iter(d)
        first = next(it)
        torch._dynamo.graph_break()
        return x + first, list(it)

    expected = fn(torch.ones(3))
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(3))
    assert actual[1] == expected[1] and torch.equal(actual[0], expected[0])


def test_concatenation_and_repetition():
    def fn(x):
        d, e = deque("ab"), deque("cd", maxlen=3)
        alias = d
        d += "x"
        d *= 2
        e *= 3
        results = [list(d), alias is d, list(e), e.maxlen, list(e + d), list(3 * deque("a")), list(deque("ab") * -1)]
        try:
            d + "z"
        except TypeError as exc:
            results.append(str(exc))
        try:
            d * "z"
        except TypeError as exc:
            results.append(str(exc))
        return x * len(results), results

    check(fn, torch.ones(3))


def test_rotate_checks_its_argument_on_a_short_deque():
    def fn(x):
        d = deque("a")
        try:
            d.rotate("x")
        except TypeError as exc:
            return x + 1, str(exc)
        return x, "rotated"

    check(fn, torch.ones(3))


def test_repr_of_a_deque_holding_itself():
    def fn(x):
        d = deque([1, 2], maxlen=4)
        d.append(d)
        text = repr(d)
        d.pop()
        return x + len(text), text

    check(fn, torch.ones(3))


def test_stand_in_iterators_and_operators_match_the_real_deque():
    real, made = collections.deque([1, 2, 3], 4), pc.deque([1, 2, 3], 4)
    assert list(made + pc.deque([9])) == list(real + collections.deque([9]))
    assert list(made * 3) == list(real * 3) and list(2 * made) == list(2 * real)
    made *= 2
    real *= 2
    assert list(made) == list(real)
    it_made, it_real = iter(made), iter(real)
    made.pop()
    real.pop()
    for it in (it_made, it_real):
        with pytest.raises(RuntimeError, match="deque mutated during iteration"):
            next(it)
        with pytest.raises(RuntimeError):  # still raising: the state is checked before the count
            next(it)
    back_made, back_real = reversed(made), reversed(real)
    assert list(back_made) == list(back_real)
    made.append(0)
    real.append(0)
    assert list(back_made) == list(back_real) == []  # a reverse iterator that ran out stays exhausted


def test_hash_of_a_deque_raises_naming_it():
    def fn(x):
        try:
            hash(deque("abc"))
        except TypeError as exc:
            return x + 1, str(exc)
        return x, "hashed"

    check(fn, torch.ones(3))


@pytest.mark.parametrize("make", [lambda: (deque([1]), [2]), lambda: ([2], deque([1])), lambda: ([1], (2,)),
                                  lambda: (deque(), {1})], ids=["deque-list", "list-deque", "list-tuple", "deque-set"])
def test_ordering_containers_of_different_kinds_raises(make):
    # each C comparison answers NotImplemented for another kind: Python's TypeError names both classes
    def fn(x):
        a, b = make()
        try:
            return x, a < b
        except TypeError as exc:
            return x + 1, str(exc)

    check(fn, torch.ones(3))


@pytest.mark.parametrize("maxlen", [2, None])
def test_handed_in_deque_initialised_again_keeps_the_new_maxlen(maxlen):
    # the real deque is given the trace's final items after the graph, and its new bound with them
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x, d):
        d.__init__([x, x + 1, x + 2], maxlen)
        return x + len(d)

    eager_d, loom_d = deque([1.0], 5), deque([1.0], 5)
    expected = fn(torch.ones(2), eager_d)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(2), loom_d)
    assert torch.equal(actual, expected) and loom.stats()["graph_breaks"] == 0
    assert loom_d.maxlen == eager_d.maxlen and len(loom_d) == len(eager_d)
    assert all(torch.equal(a, b) for a, b in zip(loom_d, eager_d))


class _Ring(deque):
    def total(self):
        return sum(self)


def test_deque_subclass_made_in_the_trace_is_one_graph():
    # a deque subclass is modelled through its shadow on the stand-in (test_deque_subclasses.py): no break
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x):
        y = x + 1
        r = _Ring([1, 2], maxlen=3)
        r.append(3)
        r.appendleft(0)
        z = y * r.total() + len(r)
        return z + r[0], list(r), r == deque([0, 1, 2])

    expected = fn(torch.ones(2))
    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(2))
    assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_deepcopy_of_a_deque_keeps_maxlen_and_copies_items():
    import copy

    def fn(x, handed):
        mut = [10]
        d = deque([mut, x], maxlen=3)
        deep, other = copy.deepcopy(d), copy.deepcopy(handed)
        mut[0] = 11
        return x + deep[1], deep[0], deep.maxlen, other[0], other.maxlen, other[1] is not handed[1]

    check(fn, torch.ones(2), deque([[1], [2]], 4))
