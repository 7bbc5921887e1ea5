"""Ordinary Python captured like torch.compile does: calls through lru_cache, iter(callable,
sentinel), class-attribute assignment. Each compared with eager, including the state left behind."""

from __future__ import annotations

import functools

import pytest
import torch
from breaks_harness import compare

import loom


@functools.lru_cache(maxsize=8)
def doubled(n):
    return n * 2


@functools.cache
def incremented(n):
    return n + 1


class Scaler:
    @functools.lru_cache(maxsize=4)  # noqa: B019  (the pattern under test)
    def factor(self):
        return 3


def lru_cached_calls(x):
    return x + doubled(3) + incremented(4) + Scaler().factor()


def lru_cached_tensor_function(x):
    @functools.lru_cache
    def scale(k):
        return k * 10

    return x * scale(2)


def iter_with_sentinel(x):
    values = iter([1, 2, 3, 0, 5])
    out = x
    for v in iter(lambda: next(values), 0):
        out = out + v
    return out


def iter_with_sentinel_never_met(x):
    values = iter([1, 2])
    return x + sum(iter(lambda: next(values), -1))


def iter_sentinel_not_callable(x):
    return list(iter(3, 0))


CASES = [lru_cached_calls, iter_with_sentinel, iter_with_sentinel_never_met]


@pytest.mark.parametrize("fn", CASES, ids=[fn.__name__ for fn in CASES])
def test_captured_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


def test_iter_sentinel_errors_are_eagers():
    compare(iter_sentinel_not_callable, torch.ones(2))


def test_lru_cache_made_in_the_frame_breaks_cleanly():
    # (creating the C wrapper is not modelled: a graph break at the decorator, eager's answer)
    compare(lru_cached_tensor_function, torch.arange(3.0))


# -- class attributes ---------------------------------------------------------------------------------
class Registry:
    count = 0
    scale = 2


class SubRegistry(Registry):
    pass


def bump_and_read(x):
    Registry.count += 1
    item = SubRegistry()
    return x + Registry.count + item.count + SubRegistry.count + type(item).count


def shadowed_on_instance(x):
    item = Registry()
    item.count = 10
    Registry.count = 5
    return x + item.count + Registry().count


def set_on_subclass(x):
    SubRegistry.scale = 7
    return x * Registry.scale + SubRegistry.scale


EXISTING = SubRegistry()


def read_through_existing_instance(x):
    Registry.count += 2
    return x + EXISTING.count


def reset():
    Registry.count = 0
    Registry.scale = 2
    if "scale" in SubRegistry.__dict__:
        del SubRegistry.scale


def state():
    return Registry.count, Registry.scale, SubRegistry.scale, dict(vars(SubRegistry)).get("scale")


@pytest.mark.parametrize("fn", [bump_and_read, shadowed_on_instance, set_on_subclass, read_through_existing_instance])
def test_class_attribute_assignment_is_replayed_and_read_back(fn):
    x = torch.arange(3.0)
    reset()
    expected, expected_state = fn(x), state()
    again, again_state = fn(x), state()
    reset()
    loom.reset()
    compiled = loom.compile(fn)
    torch.testing.assert_close(compiled(x), expected)
    assert state() == expected_state
    torch.testing.assert_close(compiled(x), again)  # the class changed: guards see it
    assert state() == again_state
    reset()
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report
    reset()
