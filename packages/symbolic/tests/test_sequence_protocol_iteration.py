"""Objects whose class has ``__getitem__`` and no ``__iter__`` (the old sequence protocol, test_iter's
``SequenceClass``): ``iter()``, loops, ``list()`` and ``in`` read items 0, 1, 2, ... until IndexError, in one
graph, as CPython does. ``__iter__ = None`` still makes the class not iterable."""

import torch
from harness import check

X = torch.arange(3.0)


class Squares:
    def __init__(self, n):
        self.n = n

    def __getitem__(self, i):
        if 0 <= i < self.n:
            return i * i
        raise IndexError(i)


class Stops(Squares):
    def __getitem__(self, i):
        if i >= 2:
            raise StopIteration
        return i + 10


class NotIterable(Squares):
    __iter__ = None


class Rows:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        if i >= len(self.t):
            raise IndexError("past the last row")
        return self.t[i]


def lists_squares(x):
    return x * sum(Squares(4)), list(Squares(3)), list(Stops(5))


def loops_over_rows(x):
    out = x * 0
    for row in Rows(x + 1):
        out = out + row
    return out


def searches_with_in(x):
    return x + 1, 9 in Squares(4), 5 in Squares(4), 11 in Stops(9)


def not_iterable(x):
    try:
        iter(NotIterable(2))
    except TypeError as exc:
        return x + 1, str(exc)
    return x


def test_list_and_sum_of_a_getitem_sequence_are_one_graph():
    check(lists_squares, X)


def test_loop_over_a_sequence_of_tensor_rows_is_one_graph():
    check(loops_over_rows, X)


def test_in_searches_a_getitem_sequence():
    check(searches_with_in, X)


def test_iter_none_still_forbids_iteration():
    check(not_iterable, X)
