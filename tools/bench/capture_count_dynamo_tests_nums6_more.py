"""Complex numbers, bools, fractions, sorting and known gaps, modelled on PyTorch's copies of CPython's tests
(test/dynamo/cpython/3_13/test_complex.py, test_bool.py, test_binop.py, test_sort.py), part of
``capture_count.py --only dynamo_tests_nums6``: complex arithmetic and attributes, bool arithmetic and its int
subclassing, ``fractions.Fraction``, ``sorted``/``list.sort`` with key, reverse and stability, user classes with
rich comparisons, ``decimal.Decimal``, ``bytes``/``bytearray`` and ``sys.getrecursionlimit``. Each is written
afresh over one tensor.
"""

from __future__ import annotations

import functools
import operator
import sys
from fractions import Fraction


# -- complex ------------------------------------------------------------------------------------------------
def c_n6_complex_arith(x):
    z = complex(1, 2) * (3 - 1j) + 2j / (1 + 1j)
    return x + z.real + z.imag


def c_n6_complex_attrs_abs(x):
    z = 3 + 4j
    w = z.conjugate()
    return x * abs(z) + w.imag + (z == complex(3, 4)) + (z != w)


def c_n6_complex_from_string(x):
    z = complex("1+2j") + complex(" 3 ") + complex("-1.5j")
    return x + z.real + z.imag




def c_n6_complex_from_dim(x):
    z = complex(x.shape[0], x.numel())
    return x + abs(z) ** 2 + z.real




# -- bool -------------------------------------------------------------------------------------------------
def c_n6_bool_arith(x):
    t, f = True, False
    return x + (t + t) + (t * 5) + (f - t) + (t / 2) + (t << 3) + (-t)


def c_n6_bool_bitops_stay_bool(x):
    r = [True & False, True | False, True ^ True, ~True]
    return x + sum(r), [type(v).__name__ for v in r]


def c_n6_bool_is_int(x):
    one = 1
    return x + isinstance(True, int) + 2 * issubclass(bool, int) + 4 * operator.eq(True, one) + 8 * (True is not one)




def c_n6_bool_user_dunder(x):
    class Empty:
        def __len__(self):
            return 0

    class Yes:
        def __bool__(self):
            return True

    return x + (not Empty()) + 2 * bool(Yes())






# -- fractions (test_binop.py's Rat, via fractions) ------------------------------------------------------
def c_n6_fraction_arith(x):
    a = Fraction(1, 3) + Fraction(1, 6)
    b = Fraction(3, 4) * 2
    return x * float(a) + float(b), str(a), a.numerator + a.denominator


def c_n6_fraction_from_float_limit(x):
    f = Fraction(0.1).limit_denominator(100)
    return x + f.numerator + f.denominator




def c_n6_fraction_of_shape(x):
    f = Fraction(x.shape[0], 6)
    return x * float(f) + f.denominator


def c_n6_user_rational_binop(x):
    class Rat:
        def __init__(self, n, d=1):
            g = __import__("math").gcd(n, d)
            self.n, self.d = n // g, d // g

        def __add__(self, other):
            if isinstance(other, int):
                other = Rat(other)
            return Rat(self.n * other.d + other.n * self.d, self.d * other.d)

        __radd__ = __add__

        def __float__(self):
            return self.n / self.d

    r = 1 + Rat(1, 2) + Rat(1, 3)
    return x + float(r), (r.n, r.d)


def c_n6_reflected_op_notimplemented(x):
    class Meters:
        def __init__(self, v):
            self.v = v

        def __mul__(self, other):
            if not isinstance(other, (int, float)):
                return NotImplemented
            return Meters(self.v * other)

        __rmul__ = __mul__

    m = 3 * Meters(2) * 2.0
    return x + m.v


# -- sorting ---------------------------------------------------------------------------------------------
def c_n6_sorted_key_reverse(x):
    words = ["pear", "Fig", "apple", "kiwi"]
    a = sorted(words, key=str.lower)
    b = sorted(words, key=len, reverse=True)
    return x + len(a[0]), a, b


def c_n6_sort_stability(x):
    pairs = [(2, "a"), (1, "b"), (2, "c"), (1, "d")]
    pairs.sort(key=operator.itemgetter(0))
    return x + pairs[0][0], [p[1] for p in pairs]


def c_n6_sort_reverse_stability(x):
    pairs = [(1, 0), (2, 1), (1, 2), (2, 3)]
    out = sorted(pairs, key=lambda p: p[0], reverse=True)
    return x + out[0][1], out


def c_n6_sort_cmp_to_key(x):
    def cmp(a, b):
        return (a > b) - (a < b)

    vals = [3, 1, 2]
    vals.sort(key=functools.cmp_to_key(cmp), reverse=True)
    return x * vals[0], vals


def c_n6_sort_user_lt(x):
    class Item:
        def __init__(self, k, i):
            self.k, self.i = k, i

        def __lt__(self, other):
            return self.k < other.k

    items = [Item(3, 0), Item(1, 1), Item(3, 2), Item(0, 3)]
    items.sort()
    return x + items[-1].k, [it.i for it in items]


def c_n6_sort_key_raises_leaves_list(x):
    data = [1, 0, 2]
    try:
        data.sort(key=lambda v: 1 / v)
    except ZeroDivisionError:
        pass
    return x + data[0], data


def c_n6_sort_mixed_types_raises(x):
    try:
        sorted([1, "a"])
    except TypeError:
        return x + 9
    return x


def c_n6_sort_floats_ints(x):
    vals = sorted([3, 1.5, -2, 0.0, True])
    return x + vals[0] + vals[-1], vals


def c_n6_sort_tensor_shape_numbers(x):
    y = x.reshape(3, 1)
    dims = sorted([y.shape[0], y.shape[1], x.numel()], reverse=True)
    return x * dims[0] + dims[-1]


def c_n6_sorted_tuples_with_none(x):
    out = sorted([(None, 2), (None, 1)])
    return x + out[0][1]


def c_n6_sort_by_tensor_item(x):
    ts = [x * 2, x - 1, x + 5]
    ordered = sorted(ts, key=lambda t: t[0].item())
    return ordered[0] + ordered[-1]




# -- known gaps: decimal, bytes, sys ---------------------------------------------------------------------
def c_n6_decimal_arith(x):
    from decimal import Decimal

    d = Decimal("1.10") + Decimal("2.20")
    return x + float(d), str(d)


def c_n6_bytes_basics(x):
    b = bytes([1, 2, 3]) + b"\x04"
    ba = bytearray(b)
    ba.append(5)
    return x + sum(ba) + len(b) + b[1]


def c_n6_recursion_limit(x):
    return x + (sys.getrecursionlimit() > 10)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
