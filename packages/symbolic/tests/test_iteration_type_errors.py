"""The TypeErrors of the iterator protocol, raised in the trace with CPython's words: a class whose
``__iter__`` returns something that is not an iterator (``iter() returned non-iterator of type '...'``,
even when what it returned is iterable: the trace used to iterate it, a wrong answer), and ``next()`` of
an iterable that is no iterator (``'list' object is not an iterator``: it used to break)."""

import torch
from harness import check

X = torch.arange(3.0)


class ReturnsInt:
    def __iter__(self):
        return 5


class ReturnsList:
    def __iter__(self):
        return [1, 2]


def loops_over(x, cls):
    try:
        for _ in cls():
            x = x + 1
    except TypeError as exc:
        return x * 2, str(exc)
    return x, "no error"


def loop_over_int_iter(x):
    return loops_over(x, ReturnsInt)


def list_of_list_iter(x):
    try:
        return x, list(ReturnsList())
    except TypeError as exc:
        return x + 1, str(exc)


def test_an_int_from_iter_raises_cpythons_type_error():
    check(loop_over_int_iter, X)


def test_a_list_from_iter_is_no_iterator_either():
    check(list_of_list_iter, X)


def next_of_a_list(x):
    try:
        next([x])
    except TypeError as exc:
        return x + 1, str(exc)
    return x, "no error"


def test_next_of_a_list_raises_cpythons_type_error_in_one_graph():
    check(next_of_a_list, X)
