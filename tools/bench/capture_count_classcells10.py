"""Classes made on each call that live across a graph break, or carry a decorator, for ``capture_count.py --only
classcells10``: a context manager whose block holds a break, a method, a ``nonlocal`` counter and a tensor
closure read after a break, a subclass, a class and its new instances after a break, and ``@dataclass`` /
``@total_ordering`` over a class whose methods read a list made in the call (with and without a break), and
``type(name, (PerCallBase,), ns)``. Each is written afresh over one tensor.
"""

from __future__ import annotations

import dataclasses
import functools


def c_cc10_with_block_holding_a_break(x):
    log = []

    class Scope:
        def __enter__(self):
            log.append("in")
            return self

        def __exit__(self, *exc):
            log.append("out")

    with Scope():
        x = x + 1
        print("", end="")
        x = x * 2
    return x, log


def c_cc10_method_after_a_break(x):
    log = []

    class Noter:
        def note(self, v):
            log.append(v)
            return len(log)

    n = Noter()
    n.note(1)
    print("", end="")
    return x + n.note(2), log


def c_cc10_nonlocal_counter_after_a_break(x):
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


def c_cc10_tensor_closure_after_a_break(x):
    class Scaled:
        def get(self):
            return x * 3

    s = Scaled()
    print("", end="")
    return s.get() + 1


def c_cc10_subclass_after_a_break(x):
    log = []

    class Base:
        def note(self):
            log.append("base")

    class Derived(Base):
        def more(self):
            self.note()
            log.append("derived")

    d = Derived()
    print("", end="")
    d.more()
    return x + len(log), log


def c_cc10_class_and_new_instances_after_a_break(x):
    log = []

    class Noter:
        def note(self):
            log.append(len(log))

    cls = Noter
    print("", end="")
    made = cls()
    made.note()
    type(made)().note()
    return x + len(log), log, type(made) is cls


def c_cc10_dataclass_reading_a_local_list(x):
    log = []

    @dataclasses.dataclass
    class Point:
        a: int
        b: int = 2

        def note(self):
            log.append(self.a + self.b)
            return self

    p = Point(1).note()
    return x + sum(log), p == Point(1, 2), repr(p), log


def c_cc10_total_ordering_reading_a_local_list(x):
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
    return x + (a <= b) + (b >= a), seen


def c_cc10_dataclass_across_a_break(x):
    log = []

    @dataclasses.dataclass(frozen=True)
    class Point:
        a: int

        def note(self):
            log.append(self.a)

    p = Point(1)
    print("", end="")
    p.note()
    Point(2).note()
    return x + sum(log), log, p == Point(1)



def c_cc10_type_call_over_a_class_made_per_call(x):
    log = []

    class Base:
        def note(self):
            log.append(1)
            return len(log)

    Sub = type("Sub", (Base,), {"k": 3})
    return x + Sub().note() + Sub.k, log


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
