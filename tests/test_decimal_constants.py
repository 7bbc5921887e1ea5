"""``decimal.Decimal`` values made from constants in a trace (misc9 item 4): construction is exact and folded;
arithmetic that signals nothing is folded and guarded on the thread's decimal context (so another precision
recompiles); arithmetic that signals (an inexact quotient) and a Decimal with a value that is no constant (a
Fraction) stay breaks. Before, every one broke ("the class defines __new__")."""

import decimal
from decimal import Decimal
from fractions import Fraction

import pytest
import torch
from breaks_harness import compare

import loom


def arithmetic(x):
    d = Decimal("1.1") + Decimal("2.2")
    return x * float(d) + (d == Decimal("3.3")) + int(Decimal("7.9")), d, str(d)


def compared_and_hashed(x):
    return x + (Decimal("1.5") < 2) + (Decimal(2) == 2), hash(Decimal(2)) == hash(2.0) == hash(2)


def inexact(x):
    return x + 1, Decimal(1) / Decimal(3)


def with_a_fraction(x):
    return x + 1, Decimal("1.5") == Fraction(3, 2)


def squared(x):
    return x + float(Decimal("1.25") * Decimal("1.25"))


@pytest.mark.parametrize("fn", [arithmetic, compared_and_hashed])
def test_folded_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


@pytest.mark.parametrize("fn", [inexact, with_a_fraction])
def test_a_signal_or_an_unknown_operand_breaks(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graph_breaks"] == 1, stats


def test_another_precision_recompiles():
    loom.reset()
    compiled = loom.compile(squared, backend="eager")
    torch.testing.assert_close(compiled(torch.zeros(1)), torch.tensor([1.5625]))
    with decimal.localcontext() as context:
        context.prec = 2
        torch.testing.assert_close(compiled(torch.zeros(1)), squared(torch.zeros(1)))  # 1.6: rounded, in eager
    torch.testing.assert_close(compiled(torch.zeros(1)), torch.tensor([1.5625]))
