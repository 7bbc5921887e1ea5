"""``operator.length_hint``'s stand-in against the real one: lengths, hints, defaults and the errors."""

from __future__ import annotations

import operator

import pytest
import torch

import loom
from loom_symbolic import polyfills


class _Hinted:
    def __init__(self, hint):
        self.hint = hint

    def __length_hint__(self):
        return self.hint


class _RefusingLen(_Hinted):
    def __len__(self):
        raise TypeError("no length")


def outcome(fn, *args):
    try:
        return ("value", fn(*args))
    except Exception as exc:
        return ("raised", type(exc), str(exc))


@pytest.mark.parametrize("args", [
    ([1, 2, 3],), ((),), ({"a": 1},), ("abc",), (iter([1, 2]),), (iter(range(5)),), (object(),), (object(), 7),
    (_Hinted(4),), (_Hinted(NotImplemented), 9), (_Hinted(-1),), (_Hinted(1.5),), (_RefusingLen(6),),
    ([1], 2.5), (5,),
])
def test_length_hint_matches_the_builtin(args):
    stand_in = polyfills.replacement_for(operator.length_hint)
    assert stand_in is not None
    assert outcome(stand_in, *args) == outcome(operator.length_hint, *args)


def hints_of_containers(x):
    return x + operator.length_hint([x, x]) + operator.length_hint({"a": x}) + operator.length_hint((x,), 4)


def test_length_hint_of_containers_holding_tensors_traces_in_one_graph():
    loom.reset()
    x = torch.arange(3.0)
    report = loom.explain(hints_of_containers, backend="eager", options={"strict": True})(x)
    assert torch.equal(report.result, hints_of_containers(x))
    assert (report.graph_count, report.break_count) == (1, 0)


def hints_of_iterators(x):
    it = iter([x, x, x])
    next(it)
    keys = iter({"a": 1, "b": 2})
    return x + operator.length_hint(it), operator.length_hint(iter(range(7))), type(keys).__length_hint__(keys)


def test_length_hint_of_builtin_iterators_is_what_is_left_in_one_graph():
    loom.reset()
    x = torch.arange(3.0)
    report = loom.explain(hints_of_iterators, backend="eager", options={"strict": True})(x)
    expected = hints_of_iterators(x)
    assert torch.equal(report.result[0], expected[0]) and report.result[1:] == expected[1:]
    assert (report.graph_count, report.break_count) == (1, 0)
