"""``int()``, ``float()``, ``complex()``, ``round()``, ``math.floor``/``ceil``/``trunc`` of objects whose class writes
the special method in Python (a user's number class, ``fractions.Fraction``), and ``cmath`` on constants: traced
without a graph break, with eager's results, CPython's order of special methods and eager's errors."""

from __future__ import annotations

import cmath
import fractions
import math
import warnings

import pytest
import torch

import loom


class Number:
    """Every conversion written in Python, each giving a different value so a wrong choice shows."""

    def __init__(self, v):
        self.v = v

    def __float__(self):
        return self.v * 2.0

    def __int__(self):
        return self.v + 1

    def __index__(self):
        return self.v + 2

    def __complex__(self):
        return complex(self.v, 1)

    def __round__(self, ndigits=None):
        return ("rounded", ndigits)

    def __floor__(self):
        return self.v - 10

    def __ceil__(self):
        return self.v + 10

    def __trunc__(self):
        return self.v * 100


class OnlyIndex:
    def __init__(self, v):
        self.v = v

    def __index__(self):
        return self.v


def _run(fn, x):
    """(eager's result, loom's result, loom's breaks)."""
    expected = fn(x)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(x)
    return expected, actual, loom.stats()["graph_breaks"]


def _assert_same(expected, actual):
    assert type(expected) is type(actual)
    if isinstance(expected, torch.Tensor):
        torch.testing.assert_close(actual, expected)
    elif isinstance(expected, tuple):
        assert len(expected) == len(actual)
        for e, a in zip(expected, actual):
            _assert_same(e, a)
    else:
        assert actual == expected


def conversions(x):
    n = Number(3)
    return (x + float(n) + int(n) + complex(n).imag, round(n), round(n, 2), math.floor(n), math.ceil(n),
            math.trunc(n), [10, 20, 30, 40, 50, 60][n])


def index_fallbacks(x):
    n = OnlyIndex(4)
    return x * int(n), float(n), complex(n)


def fractions_arithmetic(x):
    f = fractions.Fraction(3, 4) + fractions.Fraction(1, 8)
    return x * float(f), int(f), round(f), round(f, 1), math.floor(f), math.ceil(f), f.numerator


def complex_math(x):
    z = cmath.exp(1j * math.pi)
    return x + z.real + abs(cmath.sqrt(-4)) + cmath.phase(-1 + 0j), cmath.isclose(z, -1), cmath.polar(1j)


@pytest.mark.parametrize("fn", [conversions, index_fallbacks, fractions_arithmetic, complex_math])
def test_each_conversion_is_traced_as_eager_runs_it(fn):
    expected, actual, breaks = _run(fn, torch.arange(3.0))
    _assert_same(expected, actual)
    assert breaks == 0


def test_an_int_method_giving_a_bool_keeps_eager_result_and_warning():
    class Truthy:
        def __int__(self):
            return True

    def fn(x):
        return x + int(Truthy())

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        expected, actual, _ = _run(fn, torch.ones(2))
    torch.testing.assert_close(actual, expected)
    assert sum(issubclass(w.category, DeprecationWarning) for w in caught) == 2  # eager's, then loom's


def test_a_float_method_giving_a_string_raises_eager_error():
    class Wrong:
        def __float__(self):
            return "nope"

    def fn(x):
        return x + float(Wrong())

    loom.reset()
    with pytest.raises(TypeError, match="__float__ returned non-float"):
        loom.compile(fn, backend="eager")(torch.ones(2))


def test_a_tensor_argument_still_breaks_and_is_named():
    def fn(x):
        return float(x.sum()) + 1

    report = loom.explain(fn, backend="eager")(torch.ones(2))
    assert [b.what for b in report.breaks] == ["converting a tensor to a Python number"]
