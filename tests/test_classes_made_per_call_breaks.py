"""A class made on each call (its methods read values of the call) that lives across a graph break: the code
after the break matches the class by the class statement that made it, not by identity, so later calls reuse
its compiled entry. Before, every call brought another class, the guard on the class (and on its methods)
failed, and the code after the break compiled again on every call until the recompile limit."""

from __future__ import annotations

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
