"""``a == b`` on objects whose class compares in C (``Decimal``, ``Fraction`` meeting ``Decimal``): the C
``__eq__`` answers, not identity. The trace fell back to identity for any object without a Python ``__eq__``, so
two equal Decimals compared unequal: a wrong answer. Unmodelled, it now breaks once, naming the operator."""

from decimal import Decimal

import torch

import loom


def _compare(x, a, b):
    return x + 1, a == b


def _run(fn, *args):
    loom.reset()
    result = loom.compile(fn, backend="eager")(*args)
    return result, loom.stats()


def test_equal_decimals_from_the_frame_compare_equal():
    x = torch.ones(3)
    (y, eq), stats = _run(_compare, x, Decimal("1.5"), Decimal("1.5"))
    assert torch.equal(y, x + 1) and eq is True
    assert stats["graph_breaks"] == 1


def _made_decimals(x):
    y = x + 1
    d = Decimal("1.1") + Decimal("2.2")
    return y * (d == Decimal("3.3"))


def test_made_decimals_compare_by_value():
    x = torch.ones(3)
    (result, _) = _run(_made_decimals, x)
    assert torch.equal(result, _made_decimals(x))


class _Plain:
    pass


def test_objects_without_eq_still_compare_by_identity_in_one_graph():
    x, a = torch.ones(3), _Plain()
    (y, eq), stats = _run(_compare, x, a, a)
    assert eq is True
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0
