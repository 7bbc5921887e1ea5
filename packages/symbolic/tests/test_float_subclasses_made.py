"""Instances of a float subclass made in the trace: float's own operators and methods folded on the value (plain
float results, as CPython gives), the class's Python methods inlined, ``repr``/``str``, ``abs``, ``round`` and
``math.floor`` as eager's, and the value in tensor arithmetic; it broke ("instances of float subclasses are not
modelled"). ``abs()`` of an int subclass instance is answered on its value too, and ``divmod`` of such instances
or of objects writing ``__divmod__``/``__rdivmod__`` dispatches as Python's operators do (each broke)."""

import math

import pytest
import torch
from harness import check


class Meters(float):
    def doubled(self):
        return Meters(self * 2)


class Tagged(float):
    def __new__(cls, value, tag="t"):
        obj = super().__new__(cls, value)
        obj.tag = tag
        return obj

    def __repr__(self):
        return f"{self.tag}={float(self)}"


class Count(int):
    pass


def meters(x):
    m = Meters(1.5)
    d = m.doubled()
    facts = [m + 1, m * 2, -m, abs(Meters(-2.5)), m == 1.5, m < 2, m.is_integer(), m.as_integer_ratio(), m.hex(),
             float(m), int(m), round(m), round(m, 1), math.floor(m), math.ceil(m), repr(m), str(d), m // 1, m % 1,
             2**m, type(m + 1).__name__, type(d).__name__, bool(Meters(0.0)), Meters("2.5") + Meters(1)]
    return x * m + d, facts, x + abs(Count(-3)), type(abs(Count(-3))).__name__


def tagged(x):
    t = Tagged(2.5, tag="w")
    return x + t, t.tag, repr(t), t > 2, type(t + 0).__name__


class Splits:
    def __divmod__(self, other):
        return (1, 2)

    def __rdivmod__(self, other):
        return (3, 4)


class Plain:
    pass


def divmods(x):
    refused = []
    for a, b in ((Plain(), 1), (1, Plain()), ([1], 2)):
        try:
            divmod(a, b)
        except TypeError as e:
            refused.append(str(e))
    pairs = [divmod(Splits(), 5), divmod(5, Splits()), divmod(Count(7), 2), divmod(Meters(7.5), 2)]
    return x + len(refused), refused, pairs, type(pairs[2][0]).__name__


def bad_value(x):
    try:
        Meters("abc")
    except ValueError as e:
        return x + 1, str(e)


@pytest.mark.parametrize("fn", [meters, tagged, divmods, bad_value])
def test_float_subclasses_match_eager(fn):
    check(fn, torch.arange(3.0))
