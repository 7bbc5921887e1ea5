"""``functools.singledispatchmethod`` and ``wrapper.dispatch(cls)``: the implementation a singledispatch
``dispatch`` function picks for a class known while tracing is chosen as it would choose it, under the guards
of the registry, instead of tracing its weak-keyed cache (each call was a graph break; Paddle's test_functools
idea on methods)."""

import functools

import pytest
import torch
from harness import check

from loom_symbolic import translate_function

X = torch.arange(3.0)


class Scaler:
    @functools.singledispatchmethod
    def scale(self, value):
        return value

    @scale.register
    def _(self, value: int):
        return value * 10

    @scale.register
    def _(self, value: torch.Tensor):
        return value * 2

    @functools.singledispatchmethod
    @classmethod
    def tag(cls, value):
        return "other"

    @tag.register
    @classmethod
    def _(cls, value: bool):
        return cls.__name__ + "-bool"


@functools.singledispatch
def describe(value):
    return "other"


@describe.register(torch.Tensor)
def _(value):
    return value + 1


def method_calls(x):
    s = Scaler()
    return s.scale(x), s.scale(3), s.scale("a"), s.scale(True), Scaler.scale(s, x + 1)


def class_level_over_classmethods(x):
    return Scaler.tag(True), Scaler.tag(1.5), x + 1


def dispatch_by_class(x):
    return describe.dispatch(type(x))(x), describe.dispatch(int)(2), describe.dispatch(torch.Tensor) is not None


#: CPython 3.13.0's singledispatchmethod caches the method it makes per instance in a WeakKeyDictionary, whose
#: lookup by an object made in the trace is not modelled: there a method read on an instance is a break
_CACHES_PER_INSTANCE = "_method_cache" in vars(functools.singledispatchmethod(lambda self, value: value))
_read_on_instances = pytest.param(method_calls, marks=pytest.mark.skipif(
    _CACHES_PER_INSTANCE, reason="this Python caches singledispatchmethod reads per instance (not modelled)"))


@pytest.mark.parametrize("fn", [_read_on_instances, dispatch_by_class])
def test_matches_eager(fn):
    check(fn, X)


@pytest.mark.parametrize("fn", [_read_on_instances, dispatch_by_class])
def test_one_graph_no_break(fn):
    translation = translate_function(fn, X)
    assert not translation.breaks, translation.dump()


@pytest.mark.skipif(not _CACHES_PER_INSTANCE, reason="only this Python caches per instance")
def test_cached_reads_on_instances_run_as_eager():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    actual = loom.compile(method_calls, backend="eager", options={"strict": True})(X)
    expected = method_calls(X)
    assert all(torch.equal(a, e) if isinstance(e, torch.Tensor) else a == e for a, e in zip(actual, expected))


def test_read_on_the_class_runs_compiled_as_eager():
    # singledispatchmethod.__get__ makes a new function on each read: a guard on the object read (the old
    # translation) never held, an internal error that ran the frame uncompiled (strict: raised)
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    compiled = loom.compile(class_level_over_classmethods, backend="eager", options={"strict": True})
    expected = class_level_over_classmethods(X)
    actual = compiled(X)
    assert actual[:2] == expected[:2] and torch.equal(actual[2], expected[2])
    assert loom.stats()["graphs"] >= 1


def test_a_method_registration_after_compiling_is_seen():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    class Kind:
        @functools.singledispatchmethod
        def of(self, value):
            return 0

    def call(x, k):
        return x + k.of(True)

    loom.reset()
    compiled = loom.compile(call, backend="eager")
    k = Kind()
    assert torch.equal(compiled(X, k), X)
    Kind.of.register(bool, lambda self, value: 5)  # a new key: the registry's keys guard fails
    assert torch.equal(compiled(X, k), X + 5)
    report = loom.explain(call)(X, k)
    assert report.graph_count == 1 and report.break_count == 0
