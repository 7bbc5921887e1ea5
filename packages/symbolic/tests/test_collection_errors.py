"""Errors a dict, list or set operation raises inside the trace and the program catches: the exception's
``args`` (so ``str(e)`` and ``e.args``) are Python's own, and the function is one graph with no break."""

import collections

import pytest
import torch
from harness import check

X = torch.arange(3.0)


def dict_changed_size(x):
    d = {"a": 1}
    try:
        for k in d:
            d[k + "!"] = 0
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def set_changed_size(x):
    s = {1, 2}
    try:
        for v in s:
            s.add(v + 10)
    except RuntimeError as e:
        return x + 1, str(e)
    return x


def unhashable_key(x):
    try:
        {}[[1]] = x
    except TypeError as e:
        return x + 1, str(e)
    return x


def missing_keys(x):
    out = []
    for op in (lambda: {"a": 1}["b"], lambda: {"a": 1}.pop(3), lambda: {1}.remove((2, "t"))):
        try:
            op()
        except KeyError as e:
            out.append(e.args)
    return x * 2, out


def list_value_errors(x):
    out = []
    for op in (lambda: [1, 2].index(2, 0, 1), lambda: (1,).index("q"), lambda: [1].remove(5)):
        try:
            op()
        except ValueError as e:
            out.append(str(e))
    return x - 1, out


def list_index_errors(x):
    out = []
    lst = [1]
    for op in (lambda: lst[4], lambda: [].pop(), lambda: lst.pop(7), lambda: lst.__setitem__(3, 0)):
        try:
            op()
        except IndexError as e:
            out.append(e.args)
    return x + 3, out


_Pair = collections.namedtuple("_Pair", "a b")


def immutable_item_assignment(x):
    # a class without __setitem__: CPython's TypeError naming it (a break before)
    out = []
    for value in ((1, 2), "ab", _Pair(1, 2), frozenset({1}), ExceptionGroup("eg", [ValueError()]).exceptions):
        try:
            value[0] = 5
        except TypeError as e:
            out.append(e.args)
    return x + 4, out


@pytest.mark.parametrize("fn", [dict_changed_size, set_changed_size, unhashable_key, missing_keys,
                                list_value_errors, list_index_errors, immutable_item_assignment])
def test_caught_container_error_keeps_its_message(fn):
    check(fn, X)
