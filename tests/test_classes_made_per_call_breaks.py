"""A class made on each call (its methods read values of the call) that lives across a graph break: the code
after the break matches the class by the class statement that made it, not by identity, so later calls reuse
its compiled entry. Before, every call brought another class, the guard on the class (and on its methods)
failed, and the code after the break compiled again on every call until the recompile limit.

``@dataclasses.dataclass`` and ``@functools.total_ordering`` on such a class run natively on the template and on
each call's class as the compiled code makes it; before, each was a graph break ("the compiled code makes the
class on each call, and would not decorate it")."""

from __future__ import annotations

import dataclasses
import functools

import torch

import loom

HELD: list = []


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same(x, y) for x, y in zip(a, b))
    return a == b


def _compiles(fn, calls):
    """Eager's results, loom's and the entries loom compiled after each call."""
    HELD.clear()
    eager = [fn(*args) for args in calls]
    HELD.clear()
    loom.reset()
    compiled = loom.compile(fn)
    got, counts = [], []
    for args in calls:
        got.append(compiled(*args))
        counts.append(loom.stats()["frames_compiled"])
    return eager, got, counts


def _three_calls():
    return [(torch.ones(2),), (torch.zeros(2),), (torch.arange(2.0),)]


def _with_block_across_a_break(x):
    log = []

    class M:
        def __enter__(self):
            log.append("in")
            return self

        def __exit__(self, *exc):
            log.append("out")

    with M():
        x = x + 1
        print("", end="")  # a graph break inside the block: the resume function calls this call's __exit__
        x = x * 2
    return x, log


def _method_after_a_break(x):
    log = []

    class M:
        def note(self, v):
            log.append(v)
            return len(log)

    m = M()
    m.note(1)
    print("", end="")
    return x + m.note(2), log


def _nonlocal_after_a_break(x):
    count = 0

    class Counter:
        def bump(self):
            nonlocal count
            count += 1

    c = Counter()
    c.bump()
    print("", end="")
    c.bump()
    return x + count


def _tensor_cell_after_a_break(x):
    class T:
        def get(self):
            return x * 3

    t = T()
    print("", end="")
    return t.get() + 1


def _subclass_after_a_break(x):
    log = []

    class B:
        def note(self):
            log.append("b")

    class D(B):
        def more(self):
            self.note()
            log.append("d")

    d = D()
    print("", end="")
    d.more()
    return x + len(log), log


def test_the_code_after_the_break_compiles_once():
    for fn in (_with_block_across_a_break, _method_after_a_break, _nonlocal_after_a_break,
               _tensor_cell_after_a_break, _subclass_after_a_break):
        eager, got, counts = _compiles(fn, _three_calls())
        assert all(_same(e, g) for e, g in zip(eager, got)), fn.__name__
        assert counts == [2, 2, 2], (fn.__name__, counts)  # the function and its resume function, once each
        assert loom.stats()["recompiles"] == 0, fn.__name__


def _made_after_the_break(x):
    log = []

    class M:
        def note(self):
            log.append(1)

    cls = M
    print("", end="")
    made = cls()
    made.note()
    return x + 1, made, cls, type(made), log


def test_a_class_and_instances_made_after_the_break_are_this_calls():
    _, got, counts = _compiles(_made_after_the_break, _three_calls())
    assert counts == [2, 2, 2]
    for _, made, cls, kind, log in got:
        assert type(made) is cls and kind is cls and log == [1]
        made.note()
        assert log == [1, 1]
    assert got[0][2] is not got[1][2] and got[1][2] is not got[2][2]
    assert got[0][4] == [1, 1] and got[0][4] is not got[1][4]


def _held_instance(x):
    log = []

    class M:
        def note(self):
            log.append(1)
            return len(log)

    HELD.append(M())
    print("", end="")
    first = HELD[0]  # the first call's instance: its class and cells are the first call's
    return x + first.note(), list(log), type(first) is M


def test_an_instance_of_another_calls_class_is_not_taken_for_this_calls():
    eager, got, _ = _compiles(_held_instance, _three_calls())
    assert all(_same(e, g) for e, g in zip(eager, got))
    assert [g[2] for g in got] == [True, False, False]


def _dataclass_made_per_call(x):
    log = []

    @dataclasses.dataclass
    class Point:
        a: int
        b: int = 2

        def note(self):
            log.append(self.a + self.b)
            return self

    p = Point(1).note()
    return x + sum(log), p == Point(1, 2), p, log, Point


def _total_ordering_made_per_call(x):
    seen = []

    @functools.total_ordering
    class Version:
        def __init__(self, v):
            self.v = v

        def __eq__(self, other):
            return self.v == other.v

        def __lt__(self, other):
            seen.append("lt")
            return self.v < other.v

    a, b = Version(1), Version(2)
    return x + (a <= b) + (b >= a), seen, Version


def test_decorators_on_a_class_made_per_call_run_on_each_calls_class():
    eager, got, counts = _compiles(_dataclass_made_per_call, _three_calls())
    assert loom.explain(_dataclass_made_per_call)(torch.ones(2)).break_count == 0
    assert counts == [1, 1, 1]
    for e, g in zip(eager, got):
        assert _same(e[:2], g[:2]) and e[3] == g[3]
    (_, _, p1, log1, cls1), (_, _, p2, log2, cls2) = got[:2]
    assert cls1 is not cls2 and type(p1) is cls1 and dataclasses.is_dataclass(cls1)
    assert repr(p1) == "_dataclass_made_per_call.<locals>.Point(a=1, b=2)"
    p1.note()
    assert log1 == [3, 3] and log2 == [3]
    loom.reset()
    eager, got, counts = _compiles(_total_ordering_made_per_call, _three_calls())
    assert loom.explain(_total_ordering_made_per_call)(torch.ones(2)).break_count == 0
    assert counts == [1, 1, 1]
    for e, g in zip(eager, got):
        assert _same(e[:2], g[:2])
    assert got[0][2] is not got[1][2] and got[0][2](1) <= got[0][2](3) and got[0][1] == ["lt", "lt", "lt"]


def _dataclass_across_a_break(x):
    log = []

    @dataclasses.dataclass
    class Point:
        a: int

        def note(self):
            log.append(self.a)

    p = Point(1)
    print("", end="")
    p.note()
    Point(2).note()
    return x + sum(log), log, p == Point(1), type(p) is Point


def _total_ordering_across_a_break(x):
    seen = []

    @functools.total_ordering
    class Version:
        def __init__(self, v):
            self.v = v

        def __eq__(self, other):
            return self.v == other.v

        def __lt__(self, other):
            seen.append("lt")
            return self.v < other.v

    a = Version(1)
    print("", end="")
    return x + (a <= Version(2)), seen


def test_decorated_classes_made_per_call_across_a_break():
    for fn in (_dataclass_across_a_break, _total_ordering_across_a_break):
        eager, got, counts = _compiles(fn, _three_calls())
        assert all(_same(e, g) for e, g in zip(eager, got)), fn.__name__
        assert counts == [2, 2, 2], (fn.__name__, counts)


def _type_call_over_a_class_made_per_call(x):
    log = []

    class Base:
        def note(self):
            log.append(1)
            return len(log)

    Sub = type("Sub", (Base,), {"k": 3})
    s = Sub()
    return x + s.note() + Sub.k, s, Sub, Base, log


def test_type_with_a_base_made_per_call_is_made_per_call():
    eager, got, counts = _compiles(_type_call_over_a_class_made_per_call, _three_calls())
    assert loom.explain(_type_call_over_a_class_made_per_call)(torch.ones(2)).break_count == 0
    assert counts == [1, 1, 1]
    for e, (out, s, sub, base, log) in zip(eager, got):
        assert _same(e[0], out) and type(s) is sub and sub.__bases__ == (base,) and log == [1]
    got[0][1].note()
    assert got[0][4] == [1, 1] and got[1][4] == [1] and got[0][2] is not got[1][2]
