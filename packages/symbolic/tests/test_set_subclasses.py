"""Instances of set subclasses made while tracing: the subclass's Python methods run in the trace with the
set as ``self``, ``super()`` reaches set's own methods, results of set operators are plain sets as in
CPython, and an instance leaving the trace is rebuilt as its own class with its members and attributes."""

import pytest
import torch
from harness import check

X = torch.arange(3.0)


class Doubling(set):
    def __init__(self, items=(), tag="d"):
        super().__init__(items)
        self.tag = tag

    def add(self, v):
        super().add(v * 2)

    def __contains__(self, v):
        return super().__contains__(v * 2)


class Plain(set):
    pass


def overridden_methods(x):
    s = Doubling([1], tag="t")
    s.add(3)
    s.update([5])
    return x + sum(sorted(s)), 3 in s, 6 in s, s.tag, len(s), isinstance(s, set)


def instance_leaves_the_trace(x):
    s = Doubling(tag="out")
    s.add(2)
    p = Plain([1, 2])
    p.discard(1)
    return x * 2, s, p, type(p | {7}).__name__, sorted(s.union({9}))


@pytest.mark.parametrize("fn", [overridden_methods, instance_leaves_the_trace])
def test_set_subclass_made_in_trace(fn):
    check(fn, X)
