"""Raising or catching what is no exception: ``raise 5``, ``raise int``, ``raise E from 5``, ``gen.throw(5)``
and ``except int:`` raise CPython's TypeError (with its message, and the handled exception as
``__context__``) in the trace, in one graph, instead of breaking (after test_raise and test_baseexception
in CPython's suite)."""
# ruff: noqa: B016, B030, B904  (raising or catching a literal, and raising inside except, are the point)

import pytest
import torch
from harness import check

X = torch.ones(3)


def raise_int(x):
    x = x + 1
    try:
        raise 5
    except TypeError as exc:
        return x * len(str(exc)), exc.args


def raise_non_exception_class(x):
    x = x.sin()
    try:
        raise int
    except TypeError as exc:
        return x + 1, exc.args


def raise_none_while_handling(x):
    x = x + 2
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise None
    except TypeError as exc:
        return x, exc.args, type(exc.__context__).__name__


def raise_from_int(x):
    x = x * 2
    try:
        raise IndexError from 5
    except TypeError as exc:
        return x + 1, exc.args
    except IndexError:
        return x - 1, ()


def raise_from_non_exception_class(x):
    x = x.cos()
    try:
        raise ValueError("v") from str
    except TypeError as exc:
        return x + 3, exc.args


def throw_int(x):
    def gen():
        yield 1
    g = gen()
    next(g)
    x = x + 1
    try:
        g.throw(5)
    except TypeError as exc:
        return x * 2, exc.args


def throw_non_exception_class(x):
    def gen():
        yield 1
    g = gen()
    next(g)
    x = x + 1
    try:
        g.throw(dict)
    except TypeError as exc:
        return x * 2, exc.args


def except_non_exception_class(x):
    x = x + 1
    try:
        try:
            raise ValueError("v")
        except int:
            x = x + 100
    except TypeError as exc:
        return x * 2, exc.args, type(exc.__context__).__name__


def except_tuple_with_non_exception(x):
    x = x.sin()
    try:
        try:
            raise KeyError("k")
        except (KeyError, "not a class"):
            x = x + 100
    except TypeError as exc:
        return x + 1, exc.args


@pytest.mark.parametrize("fn", [except_non_exception_class, except_tuple_with_non_exception])
def test_except_clause_with_non_exception_raises_type_error_in_one_graph(fn):
    check(fn, X, graphs=1)


@pytest.mark.parametrize("fn", [raise_int, raise_non_exception_class, raise_none_while_handling, raise_from_int,
                                raise_from_non_exception_class, throw_int, throw_non_exception_class])
def test_non_exception_raises_type_error_in_one_graph(fn):
    check(fn, X, graphs=1)


def test_an_exception_instance_constant_is_still_raised():
    error = ValueError("global")

    def raise_known_instance(x):
        x = x + 1
        try:
            raise error
        except ValueError as exc:
            return x, exc.args

    eager = raise_known_instance(X)
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    actual = loom.compile(raise_known_instance, backend="eager")(X)
    assert torch.equal(actual[0], eager[0]) and actual[1] == eager[1]
