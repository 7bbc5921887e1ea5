"""Iterating an object whose class writes ``__getitem__`` but no ``__iter__`` (CPython's old sequence protocol,
which test_class exercises): loops, ``sum``, ``list``, unpacking and ``in`` ask ``obj[0]``, ``obj[1]``... until
IndexError (or StopIteration); it broke the graph before. ``__iter__ = None``, or neither method, makes ``iter()``
and ``in`` raise CPython's TypeErrors (a graph break before)."""

import torch
from harness import check


class Squares:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if i >= self.n:
            raise IndexError(i)
        return i * i


class Stops:
    def __getitem__(self, i):
        if i == 2:
            raise StopIteration
        return i + 1


def old_sequence_protocol(x):
    y = x * 2
    total = 0
    for v in Squares(3):
        total += v
    a, b = Stops()
    it = iter(Squares(2))
    first = next(it)
    return y + total + sum(Squares(4)) + len(list(Squares(2))) + (4 in Squares(3)) + a * 10 + b + first, list(it)


def test_getitem_without_iter_is_iterated():
    check(old_sequence_protocol, torch.arange(3.0))


class Rows:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        if i >= self.t.shape[0]:
            raise IndexError
        return self.t[i] * 2


def tensor_items(x):
    return sum(Rows(x)) + x


def test_getitem_items_may_be_tensors():
    check(tensor_items, torch.arange(3.0))


class NotIterable:
    __iter__ = None

    def __getitem__(self, i):
        return i


class Plain:
    pass


def iter_set_to_none(x):
    messages = []
    for obj in (NotIterable(), Plain()):
        try:
            iter(obj)
        except TypeError as e:
            messages.append(str(e))
        try:
            3 in obj  # noqa: B015
        except TypeError as e:
            messages.append(str(e))
    return x + len(messages), messages


def test_iter_none_stays_not_iterable():
    check(iter_set_to_none, torch.arange(3.0))
