"""A symbolic truth value (``n > 1`` of a dynamic int) compared with ``==``/``!=`` to a Python bool: sympy
cannot hold that comparison (``Eq(s0 > 1, True)``), so the truth value is specialised (a guard); two of them
too. It was an internal error (the frame ran uncompiled) or a break."""

from __future__ import annotations

import pytest
import torch

import loom

X = torch.ones(1)


def true_on_the_left(x, n):
    return x + 1 if True == (n > 1) else x - 1  # noqa: E712


def false_on_the_right(x, n):
    return x + 1 if (n > 1) == False else x - 1  # noqa: E712


def not_equal_to_a_bool(x, n):
    return x + 1 if (n > 1) != True else x - 1  # noqa: E712


def two_truth_values(x, n):
    return x + 1 if (n > 1) != (n > 5) else x - 1


@pytest.mark.parametrize("fn", [true_on_the_left, false_on_the_right, not_equal_to_a_bool, two_truth_values])
def test_a_symbolic_truth_value_compared_with_a_bool_compiles(fn):
    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    for n in (1, 3, 7, 0, 2):
        assert torch.equal(compiled(X, n), fn(X, n)), n
    assert loom.stats()["graph_breaks"] == 0
    assert loom.stats()["recompiles"] <= 3  # one entry per truth value (per pair of them)
