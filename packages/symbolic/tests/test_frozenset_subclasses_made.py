"""Instances of frozenset subclasses made while tracing (``class Tags(frozenset)``): frozenset's own
``__new__`` takes the members (a subclass's keyword arguments go to its ``__init__``), the set methods and
operators are frozenset's, and a returned one is rebuilt through ``frozenset.__new__`` without running its
``__init__`` again. Creating one was a graph break before."""

import torch
from harness import check


class _Tags(frozenset):
    pass


class _Tagged(frozenset):
    def __init__(self, items, tag=0):
        self.tag = tag


def made_frozenset_subclasses(x):
    p = _Tags("abc")
    q = frozenset("bc")
    g = _Tagged([1, 2], tag=5)
    return (x + len(p) + g.tag, q.issubset(p), p.issuperset(q), _Tags.issubset(q, p), p == frozenset("abc"),
            sorted(p - q), type(p | q), "a" in p, _Tags.__contains__(p, "b"), p, g, _Tags(), type(p.copy()))


def too_many_arguments(x):
    try:
        _Tags("ab", "cd")
    except TypeError as e:
        return x + 1, str(e)
    return x, ""


def test_frozenset_subclasses_made_in_the_trace():
    check(made_frozenset_subclasses, torch.ones(2))


def test_frozenset_subclass_with_two_arguments_raises():
    check(too_many_arguments, torch.ones(2))
