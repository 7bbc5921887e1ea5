"""Which NaN object a value is decides ``in`` and ``==`` of the containers holding it (CPython compares members
identity first: ``nan in (nan,)`` is True, ``float("nan") in (nan,)`` False). A compiled function reading NaNs
from its globals or a tuple argument must not be served an entry traced for other NaN objects."""

from __future__ import annotations

import math

import torch

import loom

FIRST = float("nan")
VALUE = FIRST
HELD = (FIRST,)


def membership(x):
    return x + (VALUE in HELD) + 2 * (HELD == (VALUE,))


def member_of_argument(x, held):
    found = (math.nan in held) + 2 * (held == (math.nan, held[1])) + 4 * held.count(math.nan)
    return x + found + 8 * ([math.nan] == [held[0]]) + 16 * (held.index(held[0]) if math.nan in held else 0)


def test_global_nans_rebound_to_other_objects_recompile():
    global VALUE, HELD
    loom.reset()
    compiled = loom.compile(membership, backend="eager")
    x = torch.zeros(1)
    try:
        for value, held in [(FIRST, (FIRST,)), (FIRST, (float("nan"),)), (None, None), (float("nan"), None)]:
            VALUE = HELD[0] if value is None else value
            HELD = HELD if held is None else held
            assert torch.equal(compiled(x), membership(x)), (VALUE, HELD)
    finally:
        VALUE, HELD = FIRST, (FIRST,)


def test_a_tuple_argument_holding_another_nan_recompiles():
    """The third call makes the float items symbolic (automatic dynamic): the searches still find the very
    NaN object first."""
    loom.reset()
    compiled = loom.compile(member_of_argument, backend="eager")
    x = torch.zeros(1)
    for held in [(math.nan, 1.0), (float("nan"), 1.0), (math.nan, 2.0), (math.nan, 3.0), (float("nan"), 4.0)]:
        assert torch.equal(compiled(x, held), member_of_argument(x, held)), held


def test_a_nan_argument_alone_matches_any_nan():
    def add(x, value):
        return x + value

    loom.reset()
    compiled = loom.compile(add, backend="eager")
    explained = [loom.explain(add)(torch.zeros(1), float("nan")) for _ in range(1)]
    for _ in range(10):
        assert torch.isnan(compiled(torch.zeros(1), float("nan"))).all()
    assert explained[0].graph_count == 1
