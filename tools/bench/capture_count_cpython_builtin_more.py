"""Programs after CPython's test_types, test_sys, test_numeric_tower, test_int_literal and test_cmath as PyTorch's
Dynamo suite runs them (``test/dynamo/cpython/3_13/``), for ``capture_count.py``: the ``types`` module
(``SimpleNamespace``, ``MappingProxyType``, ``MethodType``, ``new_class``, ``NoneType``, union and generic alias
types), ``sys`` attributes read in compiled code, the numeric tower (cross-type equality and hashing of int, float,
Fraction, Decimal and complex), integer literal forms, and ``cmath``. Each mixes the construct with tensor work so
that the frame is compiled.
"""

from __future__ import annotations

import cmath
import math
import sys
import types
from decimal import Decimal
from fractions import Fraction

# ---- test_types ------------------------------------------------------------------------------------------------

def c_cb_simple_namespace_attrs(x):
    y = x + 1
    ns = types.SimpleNamespace(a=1, b=2)
    ns.c = 3
    del ns.a
    return y * ns.b + ns.c + hasattr(ns, "a")


def c_cb_simple_namespace_eq(x):
    y = x + 1
    return y + (types.SimpleNamespace(a=1) == types.SimpleNamespace(a=1)) + len(vars(types.SimpleNamespace(p=1, q=2)))


def c_cb_mapping_proxy_readonly(x):
    y = x + 1
    proxy = types.MappingProxyType({"k": 4, "j": 5})
    try:
        proxy["k"] = 1
        r = 0
    except TypeError:
        r = 1
    return y * proxy["k"] + len(proxy) + r + ("j" in proxy) + proxy.get("z", 6)


def c_cb_method_type_binding(x):
    class Holder:
        scale = 3

    def scaled(self, t):
        return t * self.scale

    y = x + 1
    bound = types.MethodType(scaled, Holder())
    return bound(y) + 1


def c_cb_types_isinstance_checks(x):
    def f():
        pass

    def g():
        yield 1

    y = x + 1
    flags = [isinstance(f, types.FunctionType), isinstance(len, types.BuiltinFunctionType),
             isinstance(g(), types.GeneratorType), isinstance(None, types.NoneType),
             isinstance(lambda: 0, types.LambdaType), isinstance(sys, types.ModuleType)]
    return y + sum(flags)


def c_cb_types_new_class(x):
    Klass = types.new_class("Klass", (object,), exec_body=lambda ns: ns.update({"v": 7}))
    y = x + 1
    return y * Klass.v + (Klass.__name__ == "Klass")


def c_cb_type_three_arg_with_base(x):
    class Base:
        def twice(self, t):
            return t * 2

    Made = type("Made", (Base,), {"k": 5})
    y = x + 1
    return Made().twice(y) + Made.k + issubclass(Made, Base)


def c_cb_union_type_or(x):
    y = x + 1
    u = int | str
    return y + isinstance(3, u) + isinstance(3.0, u) + issubclass(bool, u) + (int | str == str | int)


def c_cb_generic_alias_list(x):
    y = x + 1
    alias = list[int]
    return y + (alias.__origin__ is list) + len(alias.__args__) + isinstance([], list)


def c_cb_int_float_repr_and_str(x):
    y = x + 1
    text = repr(1.0) + str(1e16) + repr(0.1) + str(-0.0) + repr(10**20)
    return y * len(text)


def c_cb_float_hex_fromhex(x):
    y = x + 1
    h = (1.5).hex()
    return y * float.fromhex(h) + len(h) + float.fromhex("0x1p-2")


def c_cb_int_conjugate_real_imag(x):
    y = x + 1
    n = 7
    return y * n.real + n.imag + n.conjugate() + n.numerator + n.denominator


def c_cb_float_format_types(x):
    y = x + 1
    text = f"{1.5:e}{2.25:g}{3:08.3f}{-4:+d}{5:b}{1e100:.2}"
    return y * len(text)


def c_cb_int_format_grouping(x):
    y = x + 1
    text = f"{1234567:_}{255:#x}{255:#o}{10:#b}{7:^5}"
    return y * len(text)


def c_cb_method_descriptor_call(x):
    y = x + 1
    parts = str.split("a b c")
    return y * len(parts) + int.__add__(2, 3) + list.__len__([1, 2])


def c_cb_none_type_call(x):
    y = x + 1
    return y + (type(None)() is None) + (type(None) is types.NoneType)


# ---- test_sys ---------------------------------------------------------------------------------------------------

def c_cb_sys_maxsize_and_int_info(x):
    y = x + 1
    return y + (sys.maxsize > 2**31) + (sys.maxsize + 1 == 2**63) + (sys.int_info.bits_per_digit > 0)


def c_cb_sys_version_info_compare(x):
    y = x + 1
    new = sys.version_info >= (3, 8)
    return y + new + (sys.version_info[0] == 3) + (sys.version_info.major == 3)


def c_cb_sys_float_info(x):
    y = x * 1
    return y + (sys.float_info.max > 1e300) + (sys.float_info.epsilon < 1e-10) + sys.float_info.dig


def c_cb_sys_exc_info_in_handler(x):
    y = x + 1
    try:
        raise KeyError("k")
    except KeyError:
        kind, value, _ = sys.exc_info()
        r = (kind is KeyError) + isinstance(value, KeyError)
    return y * r + (sys.exc_info()[0] is None)


def c_cb_sys_exception_in_handler(x):
    y = x + 1
    try:
        raise ValueError(3)
    except ValueError:
        r = sys.exception().args[0]
    return y * r


def c_cb_sys_recursionlimit_read(x):
    y = x + 1
    return y + (sys.getrecursionlimit() > 50)


def c_cb_sys_byteorder_and_platform(x):
    y = x + 1
    return y + (sys.byteorder in ("little", "big")) + isinstance(sys.platform, str)


def c_cb_sys_intern_identity(x):
    y = x + 1
    a = sys.intern("loom" + str(3))
    return y + (a == "loom3") + len(a)


def c_cb_sys_getsizeof_positive(x):
    y = x + 1
    return y + (sys.getsizeof([]) > 0)


def c_cb_sys_modules_lookup(x):
    y = x + 1
    return y + ("math" in sys.modules) + (sys.modules["sys"] is sys)


def c_cb_sys_flags_and_hash_info(x):
    y = x + 1
    return y + (sys.flags.optimize >= 0) + (sys.hash_info.width in (32, 64)) + (sys.hash_info.inf > 0)


# ---- test_numeric_tower -----------------------------------------------------------------------------------------

def c_cb_tower_hash_consistent(x):
    y = x + 1
    same = hash(2) == hash(2.0) == hash(Fraction(2)) == hash(Decimal(2)) == hash(complex(2, 0))
    return y + same + (hash(Fraction(1, 2)) == hash(0.5))


def c_cb_tower_cross_compare(x):
    y = x + 1
    flags = [Fraction(1, 2) == 0.5, Fraction(1, 3) < 0.34, Decimal("1.5") == Fraction(3, 2), 1 == 1.0 + 0j,
             2**53 + 1 > float(2**53), math.inf > 10**400]
    return y + sum(flags)


def c_cb_fraction_arith(x):
    y = x + 1
    f = Fraction(1, 3) + Fraction(1, 6)
    return y * float(f) + f.numerator + f.denominator + float(Fraction("3/4") * 2)


def c_cb_decimal_arith(x):
    y = x + 1
    d = Decimal("1.1") + Decimal("2.2")
    return y * float(d) + (d == Decimal("3.3")) + int(Decimal("7.9"))


def c_cb_nan_comparisons(x):
    y = x + 1
    nan = float("nan")
    flags = [nan == nan, nan < 1, nan > 1, nan != nan, math.isnan(nan), nan in [nan]]
    return y + sum(flags)


# ---- test_int_literal -------------------------------------------------------------------------------------------

def c_cb_int_literal_forms(x):
    y = x + 1
    return y + 0x7F + 0o17 + 0b1011 + 1_000 + 0x_ff + 0XA


def c_cb_int_literal_large(x):
    y = x + 1
    big = 0xFFFFFFFFFFFFFFFF
    return y + (big == 2**64 - 1) + (big >> 60) + (-0x8000000000000000 == -(2**63))


def c_cb_int_literal_negative_min(x):
    y = x + 1
    return y + (-2147483648 == -(2**31)) + (0o777 == 511) + (-0b1 == -1)


# ---- test_cmath -------------------------------------------------------------------------------------------------

def c_cb_cmath_sqrt_negative(x):
    y = x + 1
    z = cmath.sqrt(-4)
    return y * z.imag + z.real


def c_cb_cmath_polar_rect(x):
    y = x + 1
    r, phi = cmath.polar(complex(0, 2))
    back = cmath.rect(r, phi)
    return y * r + phi + round(back.imag, 6)


def c_cb_cmath_phase_isclose(x):
    y = x + 1
    flags = [cmath.isclose(cmath.exp(1j * cmath.pi), -1, abs_tol=1e-9), cmath.isnan(complex(math.nan, 0)),
             cmath.isinf(complex(math.inf, 1)), cmath.isfinite(1 + 2j)]
    return y * cmath.phase(-1) + sum(flags)


def c_cb_cmath_log_exp(x):
    y = x + 1
    z = cmath.log(cmath.exp(complex(1, 0.5)))
    return y * z.real + z.imag + cmath.log10(100).real


def c_cb_complex_arith_conjugate(x):
    y = x + 1
    z = (3 + 4j).conjugate() * 2
    return y * z.real + z.imag + abs(z) + (1j ** 2).real


class _Meters:
    """A user's number class: every conversion builtin calls one of its methods."""

    def __init__(self, value):
        self.value = value

    def __float__(self):
        return self.value / 100

    def __index__(self):
        return int(self.value)

    def __round__(self, ndigits=None):
        return _Meters(round(self.value, ndigits))

    def __floor__(self):
        return math.floor(self.value / 100)


def c_cb_user_number_conversions(x):
    m = _Meters(250)
    return x * float(m) + int(m) + complex(m).real + math.floor(m) + round(m).value, [0, 1, 2, 3][_Meters(2)]


CONSTRUCTS = [c_cb_user_number_conversions, c_cb_simple_namespace_attrs, c_cb_simple_namespace_eq, c_cb_mapping_proxy_readonly,
              c_cb_method_type_binding, c_cb_types_isinstance_checks, c_cb_types_new_class,
              c_cb_type_three_arg_with_base, c_cb_union_type_or, c_cb_generic_alias_list, c_cb_int_float_repr_and_str,
              c_cb_float_hex_fromhex, c_cb_int_conjugate_real_imag, c_cb_float_format_types,
              c_cb_int_format_grouping, c_cb_method_descriptor_call, c_cb_none_type_call,
              c_cb_sys_maxsize_and_int_info, c_cb_sys_version_info_compare, c_cb_sys_float_info,
              c_cb_sys_exc_info_in_handler, c_cb_sys_exception_in_handler, c_cb_sys_recursionlimit_read,
              c_cb_sys_byteorder_and_platform, c_cb_sys_intern_identity, c_cb_sys_getsizeof_positive,
              c_cb_sys_modules_lookup, c_cb_sys_flags_and_hash_info, c_cb_tower_hash_consistent,
              c_cb_tower_cross_compare, c_cb_fraction_arith, c_cb_decimal_arith, c_cb_nan_comparisons,
              c_cb_int_literal_forms, c_cb_int_literal_large, c_cb_int_literal_negative_min,
              c_cb_cmath_sqrt_negative, c_cb_cmath_polar_rect, c_cb_cmath_phase_isclose, c_cb_cmath_log_exp,
              c_cb_complex_arith_conjugate]
