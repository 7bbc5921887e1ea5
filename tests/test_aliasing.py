"""Aliasing: a function compiled for distinct arguments must not answer wrongly when they are one
object, and the reverse. Each case runs a sequence of calls, eagerly and through one compiled function,
on equal but separate copies of the arguments, keeping which argument is which object."""

from __future__ import annotations

import copy

import pytest
import torch
from breaks_harness import assert_same

import loom


class Box:
    def __init__(self, v):
        self.v = v


def add(a, b):
    return a + b


def mutate_then_read(a, b):
    a.add_(1)
    return b * 2


def append_then_len(a, b, t):
    a.append(1)
    return t + len(b)


def store_then_read(a, b, t):
    a.v = 5
    return t + b.v


def identity_test(a, b, t):
    if a is b:
        return t + 1
    return t - 1


def tensor_identity_test(a, b):
    if a is b:
        return a + 1
    return a - 1


def dict_store_then_read(a, b, t):
    a["k"] = t
    return b["k"] * 2


def _tensor():
    return torch.zeros(3)


# Each call pattern names its arguments: equal letters are the same object within that call.
CASES = [
    (add, "xx", "xy", _tensor),
    (add, "xy", "xx", _tensor),
    (mutate_then_read, "xy", "xx", _tensor),
    (mutate_then_read, "xx", "xy", _tensor),
    (append_then_len, "xy", "xx", list),
    (append_then_len, "xx", "xy", list),
    (store_then_read, "xy", "xx", lambda: Box(1)),
    (store_then_read, "xx", "xy", lambda: Box(1)),
    (identity_test, "xy", "xx", list),
    (identity_test, "xx", "xy", list),
    (tensor_identity_test, "xy", "xx", _tensor),
    (tensor_identity_test, "xx", "xy", _tensor),
    (dict_store_then_read, "xy", "xx", lambda: {"k": torch.ones(2)}),
    (dict_store_then_read, "xx", "xy", lambda: {"k": torch.ones(2)}),
]


def _arguments(pattern: str, make, extra: tuple) -> tuple:
    objects = {name: make() for name in sorted(set(pattern))}
    return tuple(objects[name] for name in pattern) + copy.deepcopy(extra)


@pytest.mark.parametrize(("fn", "first", "second", "make"), CASES, ids=lambda v: getattr(v, "__name__", v))
def test_compiled_answers_match_eager_when_arguments_alias(fn, first, second, make):
    needs_tensor = fn.__code__.co_argcount == 3
    extra = (torch.zeros(2),) if needs_tensor else ()
    compiled = loom.compile(fn, backend="eager")
    for pattern in (first, second):
        torch.manual_seed(0)
        expected_args = _arguments(pattern, make, extra)
        torch.manual_seed(0)
        actual_args = _arguments(pattern, make, extra)
        expected = fn(*expected_args)
        actual = compiled(*actual_args)
        assert_same(actual, expected)
        for a, e in zip(actual_args, expected_args):
            assert_same(a, e)


def _guard_text(fn, *args) -> str:
    return "\n".join(loom.explain(fn)(*args).guards)


def _distinct_sources(fn, *args) -> list[str]:
    """The sources of the NoAliasing guard, or [] when there is none."""
    for line in _guard_text(fn, *args).splitlines():
        if line.endswith("are distinct objects"):
            return line.split(". ", 1)[1].removesuffix(" are distinct objects").split(", ")
    return []


def test_one_object_through_two_arguments_is_guarded_to_stay_one():
    x = torch.ones(3)
    assert "L['a'] is L['b']" in _guard_text(add, x, x)


def test_distinct_arguments_are_guarded_distinct_only_when_the_trace_relies_on_it():
    x, y = torch.ones(3), torch.ones(3)
    assert _distinct_sources(add, x, y) == []  # a pure graph: aliasing cannot change its answer
    assert _distinct_sources(mutate_then_read, x, y) == ["L['a']", "L['b']"]
    assert {"L['a']", "L['b']"} <= set(_distinct_sources(identity_test, [], [], torch.zeros(1)))


def test_modules_guarded_by_identity_are_not_in_the_aliasing_guard():
    layer = torch.nn.Linear(2, 2)

    def step(m, a, b):
        a.add_(1)
        return m(b)

    sources = _distinct_sources(step, layer, torch.zeros(2), torch.zeros(2))
    assert {"L['a']", "L['b']", "L['m'].weight"} <= set(sources)
    assert "L['m']" not in sources


def _add_one_then_double(a, b):
    a.add_(1)
    return b * 2


def _views(aliased):
    base = torch.arange(5.0)
    return base[1:], (base[:-1] if aliased else base[:-1].clone())


@pytest.mark.parametrize("backend", ["aot_eager", "triton"])
@pytest.mark.parametrize("first_aliased", [False, True], ids=["distinct-first", "overlapping-first"])
def test_inputs_sharing_memory_are_guarded_for_functionalizing_backends(backend, first_aliased):
    # two views of one buffer are two objects: identity guards do not see that an update of one
    # changes the other, which AOTAutograd compiles for the sharing it saw
    compiled = loom.compile(_add_one_then_double, backend=backend)
    for aliased in (first_aliased, not first_aliased, first_aliased):
        expected = _add_one_then_double(*_views(aliased))
        torch.testing.assert_close(compiled(*_views(aliased)), expected)
    assert loom.stats()["recompiles"] == 1 and loom.stats()["cache_hits"] == 1


def test_the_storage_guard_is_only_for_graphs_that_update_an_input():
    x, y = torch.ones(3), torch.ones(3)

    def update_a_temporary(a, b):
        t = a * 2
        t.add_(1)
        return t + b

    for fn in (add, update_a_temporary):
        assert "storage overlap" not in _guard_text(fn, x, y)
    assert "storage overlap of L['a'], L['b']: none share memory" in _guard_text(_add_one_then_double, x, y)
