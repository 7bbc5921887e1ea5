"""Python numbers modelled on PyTorch's copies of CPython's tests (test/dynamo/cpython/3_13/test_math.py,
test_float.py, test_int.py), for ``capture_count.py --only dynamo_tests_nums6``: ``math`` functions (isclose,
fsum, prod, comb, perm, gcd/lcm, isqrt, copysign, frexp/ldexp, modf, floor/ceil/trunc, logs with bases, inf and
nan), float methods (``is_integer``, ``as_integer_ratio``, ``hex``/``fromhex``, ``round`` with ndigits) and int
methods (``bit_length``, ``bit_count``, ``to_bytes``/``from_bytes``, ``__index__``, three-argument ``pow``,
``divmod`` of negatives), with numbers taken from tensor shapes. Its part ``_more`` follows test_complex.py,
test_bool.py, test_binop.py (``fractions.Fraction``) and test_sort.py. Each is written afresh over one tensor.
"""

from __future__ import annotations

import math
import operator


# -- math: closeness, sums, products ------------------------------------------------------------------------
def c_n6_isclose_tolerances(x):
    a = math.isclose(1.0, 1.0 + 1e-10)
    b = math.isclose(1.0, 1.1, rel_tol=0.2)
    c = math.isclose(0.0, 1e-12, abs_tol=1e-9)
    d = math.isclose(0.0, 1e-12)
    return x + (a * 1 + b * 2 + c * 4 + d * 8)




def c_n6_fsum_exact(x):
    vals = [0.1] * 10
    return x + math.fsum(vals) - sum(vals) * 0 + (math.fsum(vals) == 1.0)


def c_n6_fsum_cancels(x):
    total = math.fsum([1e100, 1.0, -1e100, 1e-100, 1e50, -1.0, -1e50])
    return x + total * 1e100


def c_n6_prod_start(x):
    a = math.prod([1, 2, 3, 4])
    b = math.prod(range(1, 5), start=2)
    c = math.prod([])
    d = math.prod([0.5, 4.0])
    return x * (a + b + c + d)


def c_n6_prod_of_shape(x):
    y = x.reshape(1, 3, 1)
    return x + math.prod(y.shape) + math.prod(y.shape[1:])


def c_n6_comb_perm(x):
    n = x.shape[0] + 2
    return x + math.comb(n, 2) + math.perm(n, 2) + math.perm(n) + math.comb(n, n + 1)


def c_n6_comb_rejects_negative(x):
    try:
        math.comb(-1, 2)
    except ValueError:
        return x - 1
    return x


def c_n6_gcd_lcm_many(x):
    g = math.gcd(12, 18, 30) + math.gcd() + math.gcd(-4, 6) + math.gcd(0, 0)
    m = math.lcm(4, 6) + math.lcm() + math.lcm(0, 5) + math.lcm(-3, 4)
    return x + g + m


def c_n6_isqrt_of_numel(x):
    n = x.numel() * 12
    r = math.isqrt(n)
    return x.sum() + r + (r * r <= n < (r + 1) ** 2)




# -- math: float structure ----------------------------------------------------------------------------------
def c_n6_copysign_zeros(x):
    a = math.copysign(1.0, -0.0)
    b = math.copysign(3, -1)
    c = math.copysign(-2.5, 0.0)
    return x * a + b + c


def c_n6_frexp_ldexp_roundtrip(x):
    m, e = math.frexp(12.5)
    back = math.ldexp(m, e)
    return x + m + e + back + math.ldexp(1, -2)




def c_n6_modf_signs(x):
    f1, i1 = math.modf(3.75)
    f2, i2 = math.modf(-2.5)
    return x + f1 + i1 + f2 * 10 + i2


def c_n6_floor_ceil_trunc(x):
    vals = [2.5, -2.5, 3, -0.1]
    out = [math.floor(v) + 10 * math.ceil(v) + 100 * math.trunc(v) for v in vals]
    return x + sum(out), [type(math.floor(v)).__name__ for v in vals]


def c_n6_floor_of_dim_ratio(x):
    n = x.shape[0]
    return x[: math.ceil(n / 2)] * math.floor(n / 2)


def c_n6_log_bases(x):
    a = math.log(8, 2)
    b = math.log10(1000)
    c = math.log2(1024)
    d = math.log(math.e)
    e = math.log1p(0.0)
    return x + round(a + b + c + d + e, 9)




def c_n6_inf_nan_predicates(x):
    inf, nan = float("inf"), float("nan")
    flags = (math.isinf(inf), math.isinf(nan), math.isnan(nan), math.isfinite(1e308), math.isfinite(-inf))
    return x + sum(2**i for i, f in enumerate(flags) if f)


def c_n6_nan_comparisons(x):
    nan = math.nan
    return x + (nan == nan) + 2 * (nan != nan) + 4 * (nan < 1) + 8 * (nan is nan)




def c_n6_factorial_dim(x):
    return x + math.factorial(x.shape[0] + 1)




# -- float methods -----------------------------------------------------------------------------------------
def c_n6_float_is_integer(x):
    return x + (2.0).is_integer() + 2 * (2.5).is_integer() + 4 * float(x.shape[0]).is_integer()


def c_n6_float_as_integer_ratio(x):
    n, d = (0.75).as_integer_ratio()
    n2, d2 = (-2.0).as_integer_ratio()
    return x * n / d + n2 + d2


def c_n6_float_hex_fromhex(x):
    h = (1.5).hex()
    back = float.fromhex(h)
    return x + back + len(h), h




def c_n6_round_ndigits(x):
    a = round(2.675, 2)
    b = round(1234.5678, -2)
    c = round(0.5) + round(1.5) + round(2.5)
    d = round(7, -1)
    return x + a + b + c + d, type(round(2.5)).__name__, type(round(2.5, 0)).__name__






def c_n6_float_floor_division(x):
    q, r = divmod(-7.5, 2)
    return x + q + r + (7.5 // -2) + (7.5 % -2)




# -- int methods -------------------------------------------------------------------------------------------
def c_n6_int_bit_length_count(x):
    n = x.shape[0] * 85
    return x + n.bit_length() + n.bit_count() + (-n).bit_length() + (0).bit_length()


def c_n6_int_to_from_bytes(x):
    b = (1024).to_bytes(2, "big")
    back = int.from_bytes(b, "big")
    little = int.from_bytes(b, "little")
    return x + back + little + len(b)


def c_n6_int_signed_bytes(x):
    b = (-2).to_bytes(2, "little", signed=True)
    return x + int.from_bytes(b, "little", signed=True) + int.from_bytes(b, "little")


def c_n6_int_index_protocol(x):
    class Idx:
        def __init__(self, v):
            self.v = v

        def __index__(self):
            return self.v

    i = Idx(2)
    return x[: operator.index(i)] + [10, 20, 30][i] + bin(i).count("1")


def c_n6_int_pow_mod(x):
    a = pow(3, 4, 5)
    b = pow(2, -1, 7)
    c = pow(x.shape[0], 10, 1000)
    return x + a + b + c


def c_n6_int_divmod_negatives(x):
    res = [divmod(a, b) for a, b in [(7, 2), (-7, 2), (7, -2), (-7, -2)]]
    return x + sum(q * 10 + r for q, r in res), res


def c_n6_int_from_string_bases(x):
    vals = [int("ff", 16), int("0b101", 0), int("z", 36), int(" -12 "), int("1_000")]
    return x + sum(vals)






def c_n6_int_big_arith(x):
    big = 2**80 + 1
    return x + (big % 1000) + (big >> 78) + (big.bit_length())


def c_n6_int_shift_and_invert(x):
    n = x.shape[0]
    return x + (n << 3) + (~n) + (-n >> 1) + (n ^ 5) + (n & 6) + (n | 8)






def c_n6_int_true_div_shapes(x):
    n, m = x.shape[0], 2
    return x * (n / m) + n // m + n % m + (-n) // m






def c_n6_numel_to_hex_oct_bin(x):
    n = x.numel() + 12
    return x + len(hex(n)) + len(oct(n)) + len(bin(n)), format(n, "08b"), f"{n:x}"


def c_n6_int_format_specs(x):
    s = f"{1234567:,}|{255:#x}|{3.14159:.2f}|{0.25:%}|{42:>6}"
    return x + len(s), s


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
