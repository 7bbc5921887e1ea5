"""A graph break in the element of a list or dict comprehension: the comprehension is a loop with a break
in every pass. From 3.12 on it is inlined into the frame, and the list or dict it builds sits on the
resume function's stack; once its length differs between entries it is handed on unread
(``variables/passed_on.py``), so ``LIST_APPEND`` and ``MAP_ADD`` on it are made at run time, after the
graph (they reached into its items: loom's internal error, the frame ran uncompiled).
"""

from __future__ import annotations

import pytest
import torch

import loom


@torch._dynamo.disable
def _disabled_add(a, b):
    return a + b


def list_comprehension(x):
    y = x + 1
    parts = [_disabled_add(y, x * k) for k in range(6)]
    return torch.stack(parts).sum(0), len(parts)


def dict_comprehension(x):
    y = x + 1
    parts = {k: _disabled_add(y, x * k) for k in range(6)}
    return sum(parts.values()), list(parts)


def nested_list_comprehension(x):
    y = x + 1
    rows = [[_disabled_add(y, x * k) for k in range(4)] for _ in range(2)]
    return torch.stack([torch.stack(row) for row in rows]).sum(0)


def filtered_list_comprehension(x):
    y = x * 2
    parts = [_disabled_add(y, x * k) for k in range(8) if k % 3]
    return torch.stack(parts).mean(0), len(parts)


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    return a == b


@pytest.mark.parametrize("fn", [list_comprehension, dict_comprehension, nested_list_comprehension,
                                filtered_list_comprehension])
def test_a_break_in_a_comprehensions_element_keeps_eagers_answer(fn):
    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})  # an internal error raises
    assert _same(compiled(x), expected)
    assert _same(compiled(x), expected)
    stats = loom.stats()
    assert 2 <= stats["graphs"] <= 10  # the pieces around the breaks, not one per pass


def set_comprehension(x):
    y = x + 1
    keys = {_disabled_add(k, 1) for k in range(12)}
    return y * len(keys), sorted(keys)


def set_grown_by_add(x):
    y = x + 1
    keys = set()
    for k in range(12):
        keys.add(_disabled_add(k, 1) % 5)
    return y * len(keys), sorted(keys)


def set_given_unhashable_keys(x):
    y = x + 1
    keys = {(k, _disabled_add(k, 1)) for k in range(6)}  # a tuple item: the set is modelled item by item
    return y * len(keys), sorted(keys)


@pytest.mark.parametrize("fn", [set_comprehension, set_grown_by_add, set_given_unhashable_keys])
def test_a_set_grown_in_every_pass_is_handed_on_unread(fn):
    x = torch.arange(3.0)
    expected = fn(x)
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    assert _same(compiled(x), expected)
    assert _same(compiled(x), expected)
    if fn is not set_given_unhashable_keys:  # that one still compiles once per pass, as before
        assert loom.stats()["recompiles"] <= 3  # guarding the set's items compiled once per pass
