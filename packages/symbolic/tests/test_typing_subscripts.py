"""Subscripting typing forms in the trace (``typing.Union[int, str]``, ``Optional[...]``, a ``Generic`` or
``collections.abc`` class with a TypeVar, ``list[int]``, ``Callable[[T], R]``) builds the real form, in one graph: typing's own code
reads the caller's frame, which broke the graph. A class with a ``__class_getitem__`` of its own still runs it."""

import typing
from collections.abc import Callable, MutableSet

import pytest
import torch
from harness import check

X = torch.arange(3.0)
T = typing.TypeVar("T")


class _Box(typing.Generic[T]):
    pass


class _Members(MutableSet):
    pass


class _Counting:
    seen = []

    def __class_getitem__(cls, item):
        cls.seen.append(item)
        return (cls, item)


def union_keys(x):
    d = {typing.Union[int, str]: x * 2, typing.Optional[float]: x * 3}  # noqa: UP007, UP045
    return d[typing.Union[str, int]] + d[typing.Union[float, None]]  # noqa: UP007


def generic_forms(x):
    forms = [_Box[int], _Members[T], list[int], typing.Dict[str, T], typing.cast(_Box[T], x)]  # noqa: UP006
    return x + len(forms), forms[0].__origin__ is _Box, typing.get_args(forms[3]), forms[2] == list[int]


def own_class_getitem(x):
    made = _Counting[int]
    return x + len(made), made[1] is int


@pytest.mark.parametrize("fn", [union_keys, generic_forms])
def test_typing_subscripts(fn):
    check(fn, X)


def test_own_class_getitem_runs():
    _Counting.seen.clear()
    check(own_class_getitem, X)
    # once by eager, once by the rewritten code (replayed after the graph)
    assert _Counting.seen == [int, int]


def callable_forms(x):
    # collections.abc.Callable's __class_getitem__ is its own alias class (pytree's map_only writes these)
    made = [Callable[[T], typing.Any], Callable[..., int], Callable[[int, str], float]]
    return x + len(made), made[2].__args__, made[0] == Callable[[T], typing.Any]


def test_callable_argument_lists_fold():
    check(callable_forms, X)
