"""Calls of ``functools.singledispatch`` functions: the implementation for the first argument's class is chosen
while tracing, as the wrapper chooses it, under guards on the registry (Paddle's test_functools; the wrapper's
weak-keyed cache was a graph break)."""

import collections.abc
import functools

import pytest
import torch
from harness import check

from loom_symbolic import translate_function

X = torch.arange(3.0)


@functools.singledispatch
def describe(value):
    return "other"


@describe.register
def _(value: int):
    return "int"


@describe.register(list)
def _(value):
    return f"list{len(value)}"


@describe.register(torch.Tensor)
def _(value):
    return value * 2


class Base:
    pass


class Child(Base):
    pass


@describe.register(Base)
def _(value):
    return "base"


def dispatched(x):
    return describe(x) + 1, describe(3), describe(True), describe([1, 2]), describe("s"), describe(Child())


def no_argument(x):
    try:
        describe()
    except TypeError as e:
        return x + 1, str(e)


@pytest.mark.parametrize("fn", [dispatched, no_argument])
def test_dispatch_matches_eager(fn):
    check(fn, X)


def test_the_wrapper_is_not_traced():
    translation = translate_function(dispatched, X)
    assert not translation.breaks, translation.dump()


def _compiled(fn):
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    return loom.compile(fn, backend="eager")


def test_a_registration_after_compiling_is_seen():
    @functools.singledispatch
    def kind(value):
        return 0

    def call(x):
        return x + kind(True)

    compiled = _compiled(call)
    assert torch.equal(compiled(X), call(X))
    kind.register(bool, lambda value: 5)  # a new key: the registry's keys guard fails
    assert torch.equal(compiled(X), X + 5)
    kind.register(bool, lambda value: 7)  # the same key, another function: the entry's guard fails
    assert torch.equal(compiled(X), X + 7)


def test_a_registered_abc_dispatches_as_eager():
    @functools.singledispatch
    def kind(value):
        return 0

    kind.register(collections.abc.Sequence, lambda value: 1)

    def call(x):
        return x + kind([1]) + kind(2)

    assert torch.equal(_compiled(call)(X), call(X))
