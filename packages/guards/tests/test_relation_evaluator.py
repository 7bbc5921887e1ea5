"""A ``Relation`` is checked by one function compiled from its expression when the guard is built: a guard
check (a resumed ``range`` loop's ``s0 < s1`` runs once per pass) makes no environment dict and calls no
``eval``, and answers exactly as evaluating the expression over its ints would."""

from __future__ import annotations

import builtins
import itertools

import pytest

import loom_guards
from loom_guards import Local, Relation

from .helpers import FrameView

EXPRESSIONS = [
    "s0 < s1",
    "s0 >= s1",
    "0 + s0 * 2 < s1",
    "s0 == s1 and s0 != 3 or not s1",
    "-s0 ** 2 + max(s0, s1) // 3 != abs(s1 - 100) % 7",
    "1 < s0 <= s1 < 9",
    "min(s0, s1, 4) - abs(-s0) >= -(s1 // 2)",
]


@pytest.mark.parametrize("expr", EXPRESSIONS)
def test_it_answers_as_the_expression_does(expr):
    relation = Relation(expr, {"s0": Local("a"), "s1": Local("b")})
    env = {"min": min, "max": max, "abs": abs}
    for a, b in itertools.product((-3, 0, 1, 2, 5, 8, 100), repeat=2):
        assert relation.evaluate(a, b) is bool(eval(expr, {"__builtins__": {}}, {**env, "s0": a, "s1": b}))


def test_a_value_that_is_no_int_fails_it():
    relation = Relation("s0 < s1", {"s0": Local("a"), "s1": Local("b")})
    assert relation.evaluate(1, 2) is True
    for bad in (1.0, True, None, "1", 2**70 * 1.0):
        assert relation.evaluate(bad, 2) is False
        assert relation.evaluate(1, bad) is False


def test_symbols_may_bear_any_name():
    relation = Relation("type < int + bool - _0", {"type": Local("a"), "int": Local("b"), "bool": Local("c"),
                                                    "_0": Local("d")})
    assert relation.evaluate(1, 5, 2, 3) is True  # 1 < 5 + 2 - 3
    assert relation.evaluate(4, 5, 2, 3) is False
    assert relation.evaluate(1, 5.0, 2, 3) is False


def test_a_check_calls_no_eval(monkeypatch):
    relation = Relation("s0 < s1", {"s0": Local("a"), "s1": Local("b")})
    guard = loom_guards.compile([relation])

    def refused(*args, **kwargs):
        raise AssertionError("eval called by a guard check")

    monkeypatch.setattr(builtins, "eval", refused)
    assert guard(FrameView({"a": 1, "b": 2}))
    assert not guard(FrameView({"a": 3, "b": 2}))
    assert relation.evaluate(1, 2) and not relation.evaluate(2, 1)
    assert relation.explain(2, 1) == ("s0 < s1", "s0=2, s1=1")
