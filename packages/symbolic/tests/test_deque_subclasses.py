"""Python subclasses of ``collections.deque`` made while tracing, modelled through a shadow of the class on
the deque's stand-in (``polyfills/subclasses.py``): inherited C methods, overrides (``__iter__``, ``append``)
that the C methods do not call, ``super()`` and ``deque.__init__(self)``, instance attributes, ``copy``,
``+``/``*`` and ``repr`` keeping the subclass, and the object rebuilt as a real subclass when it is returned.
Each runs in one graph with eager's answer; a subclass the shadow cannot model breaks once, with its reason."""

from __future__ import annotations

from collections import deque

import pytest
import torch
from harness import check

from loom_symbolic.polyfills import subclasses


class _Plain(deque):
    pass


class _Kw(deque):
    def __init__(self, newarg=1):
        deque.__init__(self)
        self.newarg = newarg


class _Slots(deque):
    __slots__ = ("__dict__", "x")


class _EmptyIter(deque):
    def __iter__(self):
        return iter([])


class _Logged(deque):
    def append(self, item):
        self.log = getattr(self, "log", 0) + 1
        super().append(item * 10)


class _Own(deque):
    def __new__(cls, *args):
        return super().__new__(cls)


def test_inherited_methods_and_isinstance():
    def fn(x):
        d = _Plain(range(5), maxlen=6)
        d.append(5)
        d.appendleft(-1)
        d.rotate(2)
        left, right = d.popleft(), d.pop()
        return x + left + right, list(d), len(d), d.maxlen, isinstance(d, deque), type(d) is _Plain

    check(fn, torch.ones(2))


def test_init_override_calling_deque_init_and_attributes():
    def fn(x):
        d = _Kw(newarg=5)
        d.extend("ab")
        return x * d.newarg, list(d), d.maxlen, vars(d)

    check(fn, torch.ones(2))


def test_override_of_iter_is_what_iteration_and_comparison_see():
    # the C deque compares through iteration (which the override answers) but extends without it
    def fn(x):
        a, b = _EmptyIter([1, 2, 3]), _EmptyIter([4, 5, 6])
        return x + len(a), a == b, list(a), sum(a), deque(a) == deque()

    check(fn, torch.ones(2))


def test_overridden_append_is_not_what_extend_calls():
    def fn(x):
        d = _Logged()
        d.append(1)
        d.extend([2, 3])  # deque.extend is C: it never calls the override
        return x + sum(d), list(d), d.log

    check(fn, torch.ones(2))


def test_copy_add_mul_and_repr_keep_the_subclass():
    def fn(x):
        d = _Slots("abc", maxlen=4)
        d.x = ["x"]
        e, f = d.__copy__(), d * 2
        g = d + deque("z")
        return (x * len(f), type(e).__name__, list(e), e.maxlen, type(f).__name__, list(f),
                type(g).__name__, list(g), repr(d), d.x)

    check(fn, torch.ones(2))


def test_returned_subclass_is_rebuilt_with_its_attributes():
    def fn(x):
        d = _Slots([1, 2], maxlen=3)
        d.x = 7
        d.extra = "e"
        d.append(3)
        return x + 1, d

    check(fn, torch.ones(2))  # the harness compares the rebuilt object with eager's: type and items


def test_returned_subclass_rebuilt_as_real_object():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x):
        d = _Kw(newarg=3)
        d.append(x * 2)
        return d

    def slotted(x):
        d = _Slots([x], maxlen=2)
        d.x, d.extra = 7, "e"
        return d

    loom.reset()
    out = loom.compile(fn, backend="eager")(torch.ones(2))
    assert type(out) is _Kw and out.newarg == 3 and len(out) == 1 and torch.equal(out[0], torch.full((2,), 2.0))
    out = loom.compile(slotted, backend="eager")(torch.ones(2))
    assert type(out) is _Slots and out.maxlen == 2 and out.x == 7 and vars(out) == {"extra": "e"}
    assert loom.stats()["graph_breaks"] == 0


def test_subclass_with_its_own_new_breaks_once_with_reason():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x):
        y = x + 1
        d = _Own([1, 2])
        d.append(3)
        return y * len(d), list(d)

    expected = fn(torch.ones(2))
    loom.reset()
    report = loom.explain(fn)(torch.ones(2))
    assert report.break_count == 1
    assert "it defines __new__" in str(report)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(2))
    assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
    assert loom.stats()["graph_breaks"] == 1


def test_shadow_follows_a_replaced_method():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    class Local(deque):
        def total(self):
            return sum(self)

    def fn(x):
        return x + Local([1, 2]).total()

    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), 4.0))
    Local.total = lambda self: -len(self)  # the guard on the class namespace sees it: a fresh trace
    assert torch.equal(compiled(torch.ones(2)), torch.full((2,), -1.0))


def test_refusals_name_the_reason():
    class NoDict(deque):
        __slots__ = ()

    class UsesState(deque):
        def peek(self):
            return self._items[0]

    assert "no __dict__" in subclasses.shadow_refusal(NoDict, deque)
    assert "_items" in subclasses.shadow_refusal(UsesState, deque)
    assert subclasses.shadow_refusal(_Kw, deque) is None


class _Tagged(deque):
    def push(self, item):
        super().append(item)
        return self.tag

    def append(self, item):  # the refill after the graph must not run this
        raise AssertionError("override called")


def test_handed_in_subclass_is_read_and_refilled_through_deque():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x, d):
        tag = d.push(x.sum())
        d.appendleft(tag)
        return x * len(d) + d[1], type(d).__name__, d.maxlen

    def make():
        d = _Tagged([1.0], maxlen=4)
        d.tag = 5
        return d

    eager_d, loom_d = make(), make()
    expected = fn(torch.ones(2), eager_d)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(torch.ones(2), loom_d)
    assert torch.equal(actual[0], expected[0]) and actual[1:] == expected[1:]
    assert list(map(float, loom_d)) == list(map(float, eager_d)) and type(loom_d) is _Tagged and loom_d.tag == 5
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


def test_attribute_write_on_a_handed_in_subclass_breaks():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    def fn(x, d):
        y = x + len(d)
        d.tag = 7
        return y * 2

    d = _Tagged([1.0])
    d.tag = 5
    loom.reset()
    report = loom.explain(fn)(torch.ones(2), d)
    assert report.break_count == 1 and "not replayed" in str(report)
    d.tag = 5
    out = loom.compile(fn, backend="eager")(torch.ones(2), d)
    assert torch.equal(out, torch.full((2,), 4.0)) and d.tag == 7
