"""``a != b`` on objects whose class defines ``__eq__`` but not ``__ne__``: ``object.__ne__`` answers
``not a.__eq__(b)`` (``NotImplemented`` passes through to the reflected side, then identity). The trace
compared identity instead, a wrong answer for two equal objects."""

import torch
from harness import check


class _Point:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return isinstance(other, _Point) and self.v == other.v


class _Shy:
    def __eq__(self, other):
        return NotImplemented


def not_equal_answered_by_eq(x):
    a, b, shy = _Point(1), _Point(1), _Shy()
    return x + 1, a != b, a == b, _Point(2) != a, a != 3, shy != shy, shy != _Shy(), a != shy


def test_not_equal_asks_eq():
    check(not_equal_answered_by_eq, torch.ones(3))


def argument_objects_compared(x, a, b):
    return x * 2, a != b, [a] != [b]


def test_not_equal_on_objects_from_the_frame():
    check(argument_objects_compared, torch.ones(3), _Point(4), _Point(4))
