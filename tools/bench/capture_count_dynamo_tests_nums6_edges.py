"""Edges of Python numbers and sorting, part of ``capture_count.py --only dynamo_tests_nums6``, after PyTorch's
copies of CPython's test_math.py (``__floor__``/``__ceil__``/``__trunc__``/``__round__``/``__index__`` of user
classes, ``fsum`` of a generator, ``cmath``), test_int.py (int subclasses), test_binop.py (``Fraction`` operators
and hashing, the ``numbers`` ABCs) and test_sort.py (``NotImplemented`` from ``__lt__``, ``__gt__`` only,
``total_ordering``, ties in tuples of user objects). Each is written afresh over one tensor.
"""

from __future__ import annotations

import cmath
import functools
import math
import numbers
import operator
from fractions import Fraction


def c_n6_math_rounding_dunders(x):
    class Level:
        def __floor__(self):
            return 3

        def __ceil__(self):
            return 4

        def __trunc__(self):
            return 5

    lv = Level()
    return x + math.floor(lv) + 10 * math.ceil(lv) + 100 * math.trunc(lv)


def c_n6_round_dunder_ndigits(x):
    class Money:
        def __round__(self, ndigits=None):
            return 7 if ndigits is None else ndigits * 2

    return x + round(Money()) + round(Money(), 3)


def c_n6_index_dunder_into_math(x):
    class Count:
        def __index__(self):
            return 3

    c = Count()
    return x + operator.index(c) + math.comb(c, 2) + math.gcd(c, 6) + math.factorial(c)


def c_n6_index_dunder_into_bin_range(x):
    class Count:
        def __index__(self):
            return 5

    return x + len(bin(Count())) + len(range(Count())) + [1, 2, 3, 4, 5, 6][Count()]


def c_n6_fsum_of_generator(x):
    return x + math.fsum(i / 10 for i in range(x.shape[0] * 4))


def c_n6_prod_of_generator(x):
    return x * math.prod(k + 1 for k in range(x.shape[0]))


def c_n6_int_subclass_sorted_by_own_lt(x):
    class Desc(int):
        def __lt__(self, other):
            return int(self) > int(other)

    vals = sorted([Desc(1), Desc(3), Desc(2)])
    return x + int(vals[0]), [int(v) for v in vals]


def c_n6_cmath_roots_polar(x):
    z = cmath.sqrt(-4)
    r, phi = cmath.polar(1j)
    return x + z.imag + r + round(phi, 6) + cmath.isclose(1j, 1j)


def c_n6_fraction_operators(x):
    a = Fraction(3, 4)
    third = Fraction(1, 3)
    vals = [a // third, a % third, a**2, -a, abs(-a), math.floor(a), round(a), round(Fraction(7, 3), 1)]
    return x + float(sum(vals)), [str(v) for v in vals]


def c_n6_fraction_hash_matches_numbers(x):
    return x + (hash(Fraction(1, 2)) == hash(0.5)) + len(set([Fraction(1, 1), 1, 1.0]))


def c_n6_numbers_abcs(x):
    flags = [isinstance(1, numbers.Integral), isinstance(1.5, numbers.Real), isinstance(1j, numbers.Complex),
             isinstance(Fraction(1, 2), numbers.Rational), isinstance(True, numbers.Number),
             isinstance(1.5, numbers.Rational)]
    return x + sum(1 << i for i, f in enumerate(flags) if f)


def c_n6_sort_lt_notimplemented(x):
    class Opaque:
        def __lt__(self, other):
            return NotImplemented

    try:
        sorted([Opaque(), Opaque()])
    except TypeError:
        return x + 1
    return x


def c_n6_sort_gt_only_reflected(x):
    class G:
        def __init__(self, v):
            self.v = v

        def __gt__(self, other):
            return self.v > other.v

    vals = sorted([G(3), G(1), G(2)])
    return x + vals[0].v, [g.v for g in vals]


def c_n6_total_ordering_compares(x):
    @functools.total_ordering
    class V:
        def __init__(self, v):
            self.v = v

        def __eq__(self, other):
            return self.v == other.v

        def __lt__(self, other):
            return self.v < other.v

    a, b = V(1), V(2)
    return x + (a <= b) + 2 * (b > a) + 4 * (b >= b) + max([a, b]).v


def c_n6_sort_tuples_user_ties(x):
    class K:
        def __init__(self, v):
            self.v = v

        def __lt__(self, other):
            return self.v < other.v

        def __eq__(self, other):
            return self.v == other.v

    vals = sorted([(K(2), "b"), (K(1), "a"), (K(2), "a")])
    return x + vals[0][0].v, [t[1] for t in vals]


def c_n6_sorted_tensor_values(x):
    vals = sorted(x.tolist(), reverse=True)
    return x + vals[0]


def c_n6_bool_is_not_a_base(x):
    try:
        class Flag(bool):
            pass
    except TypeError as exc:
        return x + 1, str(exc)
    return x, ""


def c_n6_float_subclass_method(x):
    class Meters(float):
        def doubled(self):
            return self * 2

    return x + Meters(1.5).doubled()


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
