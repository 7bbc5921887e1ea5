"""Programs after CPython's test_patma, test_bool, test_int, test_float, test_math, test_complex and test_enum as
PyTorch's Dynamo suite runs them (``test/dynamo/cpython/3_13/``), for ``capture_count.py``: structural pattern
matching (literals, sequences, mappings, class patterns, guards, or- and as-patterns), ``bool`` as an ``int``,
``int`` parsing, bit operations and byte conversion, ``float`` corners (``is_integer``, ``as_integer_ratio``, inf,
``hex``), ``math`` functions, ``complex`` arithmetic, and ``enum`` (``auto``, ``Flag``, lookups, members).
Each mixes the construct with tensor work so that the frame is compiled.
"""

from __future__ import annotations

import dataclasses
import enum
import math

# ---- test_patma ----------------------------------------------------------------------------------------------

def _classify(v):
    match v:
        case 0 | 1:
            return 1
        case [a, b]:
            return a + b
        case [first, *rest]:
            return first * 10 + len(rest)
        case {"k": k, **others}:
            return k + len(others)
        case str() as s if len(s) > 2:
            return len(s) * 100
        case _:
            return -1


def c_cl_match_literal_sequence_mapping(x):
    y = x * 2
    got = [_classify(v) for v in (1, [3, 4], [5, 6, 7], {"k": 2, "z": 0}, "abcd", "a", 3.5)]
    return y + sum(got)


@dataclasses.dataclass
class _Point:
    x: int
    y: int


def c_cl_match_class_positional(x):
    y = x + 1
    total = 0
    for p in (_Point(0, 3), _Point(2, 0), _Point(4, 5)):
        match p:
            case _Point(0, yy):
                total += yy
            case _Point(x=xx, y=0):
                total += xx * 10
            case _Point(a, b):
                total += a * b * 100
    return y + total


def c_cl_match_builtin_class_patterns(x):
    y = x - 1
    out = 0
    for v in (3, 2.5, "s", (1,), None, True):
        match v:
            case bool(b):
                out += 1000 * b
            case int(n):
                out += n
            case float(f):
                out += int(f * 10)
            case str():
                out += 7
            case tuple((t,)):
                out += 50 + t
            case None:
                out += 500
    return y + out


def c_cl_match_guard_and_capture(x):
    y = x * 3
    total = 0
    for pair in ((1, 2), (3, 3), (5, 1)):
        match pair:
            case (a, b) if a == b:
                total += 100
            case (a, b) if a < b:
                total += b
            case (a, _):
                total += a * 1000
    return y + total


def c_cl_match_on_tensor_shape(x):
    match x.shape:
        case (n,):
            y = x * n
        case (n, m):
            y = x * (n + m)
        case _:
            y = x
    return y + 1


def c_cl_match_value_pattern(x):
    class Codes:
        ONE = 1
        TWO = 2

    y = x + 1
    res = []
    for v in (2, 1, 9):
        match v:
            case Codes.ONE:
                res.append("one")
            case Codes.TWO:
                res.append("two")
            case _:
                res.append("other")
    return y + len("".join(res)), res


def c_cl_match_nested_mapping_rest(x):
    y = x * 2
    cfg = {"op": "scale", "args": [3, {"bias": 1}], "extra": 0}
    match cfg:
        case {"op": "scale", "args": [k, {"bias": b}]}:
            y = y * k + b
        case _:
            y = y - 1
    return y


# ---- test_bool -----------------------------------------------------------------------------------------------

def c_cl_bool_is_int(x):
    y = x + 1
    vals = [True + True, True * 5, -True, True << 2, isinstance(True, int), int(False), True // 1]
    return y + sum(vals) + (True == 1) + (hash(True) == hash(1)) + len(str(True))


def c_cl_bool_bitwise_results(x):
    y = x * 2
    a = True & False
    b = True | False
    c = True ^ True
    return y + a + b * 10 + c * 100 + (type(a) is bool) + (type(True + 0) is int)


def c_cl_bool_constructor(x):
    y = x - 1
    flags = [bool(0), bool(""), bool([0]), bool(None), bool(0.0), bool(-1), bool(())]
    return y + sum(flags) + flags.count(False)


# ---- test_int ------------------------------------------------------------------------------------------------

def c_cl_int_parse_bases(x):
    y = x + 1
    vals = [int("ff", 16), int("0x1f", 0), int("-101", 2), int(" 42 "), int("1_000"), int("z", 36)]
    return y + sum(vals)


def c_cl_int_parse_error(x):
    y = x * 2
    try:
        int("12a")
        bad = 0
    except ValueError:
        bad = 1
    return y + bad


def c_cl_int_floor_div_mod_signs(x):
    y = x + 1
    vals = [-7 // 2, -7 % 2, 7 // -2, 7 % -2, divmod(-7, 3)[0], divmod(-7, 3)[1], pow(3, 4, 5), pow(2, -1, 7)]
    return y + sum(vals)


def c_cl_int_bit_methods(x):
    y = x * 2
    n = 300
    return y + n.bit_length() + (-n).bit_length() + bin(n).count("1") + (n >> 3) + (n & 0xF) + (~n)


def c_cl_int_to_from_bytes(x):
    y = x + 1
    b = (1025).to_bytes(2, "big")
    n = int.from_bytes(b, "little")
    neg = (-2).to_bytes(2, "big", signed=True)
    return y + n + int.from_bytes(neg, "big", signed=True) + len(b)


def c_cl_int_big_arithmetic(x):
    y = x * 2
    big = 2 ** 100
    return y + (big // 2 ** 98) + big % 7 + len(str(big))


def c_cl_int_from_float_and_round(x):
    y = x + 1
    vals = [int(3.9), int(-3.9), round(2.5), round(3.5), round(-0.5), round(1234, -2), math.trunc(-2.7)]
    return y + sum(vals)


def c_cl_int_subclass(x):
    class MyInt(int):
        def double(self):
            return MyInt(self * 2)

    y = x * 2
    m = MyInt(5)
    return y + m.double() + (type(m + 1) is int) + isinstance(m, int)


# ---- test_float ----------------------------------------------------------------------------------------------

def c_cl_float_methods(x):
    y = x + 1
    f = 2.5
    num, den = f.as_integer_ratio()
    return y + num + den + f.is_integer() + (4.0).is_integer() + len(f.hex())


def c_cl_float_parse_special(x):
    y = x * 2
    inf = float("inf")
    nan = float("nan")
    vals = [inf > 1e308, nan != nan, math.isinf(-inf), math.isnan(nan), float(" 1.5 ") == 1.5, float("1e3") == 1000]
    return y + sum(vals)


def c_cl_float_floor_div_mod(x):
    y = x + 1
    vals = [7.5 // 2, -7.5 // 2, 7.5 % 2, -7.5 % 2, divmod(5.5, -2)[1]]
    return y + sum(vals)


def c_cl_float_repr_round(x):
    y = x * 2
    s = repr(0.1 + 0.2) + str(1e16) + format(1 / 3, ".3f")
    return y + len(s) + round(2.675, 2)


def c_cl_float_zero_division(x):
    y = x + 1
    try:
        1.0 / 0  # noqa: B018
        caught = 0
    except ZeroDivisionError:
        caught = 1
    return y + caught


# ---- test_math -----------------------------------------------------------------------------------------------

def c_cl_math_integer_functions(x):
    y = x * 2
    vals = [math.gcd(12, 18), math.lcm(4, 6), math.comb(5, 2), math.perm(4, 2), math.factorial(5), math.isqrt(17)]
    return y + sum(vals)


def c_cl_math_float_functions(x):
    y = x + 1
    vals = [math.floor(-2.5), math.ceil(2.1), math.copysign(3, -0.0), math.fmod(-7, 3), math.hypot(3, 4),
            math.sqrt(16), math.log(8, 2), math.exp(0), math.fabs(-2)]
    return y + sum(vals)


def c_cl_math_fsum_prod_dist(x):
    y = x * 2
    return y + math.fsum([0.1] * 10) + math.prod([2, 3, 4]) + math.dist((0, 0), (3, 4)) + math.prod([], start=5)


def c_cl_math_isclose_and_constants(x):
    y = x + 1
    close = math.isclose(0.1 + 0.2, 0.3) + math.isclose(1.0, 1.1, rel_tol=0.2)
    return y * math.pi + close + math.isfinite(math.e) + math.isinf(math.inf)


def c_cl_math_domain_error(x):
    y = x * 2
    try:
        math.sqrt(-1)
        err = 0
    except ValueError:
        err = 1
    return y + err


def c_cl_math_on_tensor_item(x):
    y = x + 1
    s = y.sum().item()
    return y * math.floor(s / 2) + math.sqrt(s)


# ---- test_complex --------------------------------------------------------------------------------------------

def c_cl_complex_arithmetic(x):
    y = x * 2
    z = complex(1, 2) * (3 - 1j) + 2j
    w = z / (1 + 1j)
    return y + z.real + z.imag + abs(3 + 4j) + w.conjugate().imag


def c_cl_complex_parse_and_compare(x):
    y = x + 1
    z = complex("1+2j")
    return y + z.real + (z == 1 + 2j) + (complex(3) == 3) + len(repr(z))


def c_cl_complex_pow_and_bool(x):
    y = x * 2
    z = (1j) ** 2
    return y + z.real + bool(0j) + bool(1j) + (1 + 0j == 1)


# ---- test_enum -----------------------------------------------------------------------------------------------

class _Color(enum.Enum):
    RED = enum.auto()
    GREEN = enum.auto()
    BLUE = enum.auto()


class _Perm(enum.Flag):
    R = 4
    W = 2
    X = 1


class _Level(enum.IntEnum):
    LOW = 1
    HIGH = 3


class _Shade(enum.Enum):
    DARK = 1
    BLACK = 1  # an alias of DARK


def c_cl_enum_auto_members(x):
    y = x + 1
    names = [c.name for c in _Color]
    return y + sum(c.value for c in _Color) + len(names) + len(_Color.__members__) + _Color["BLUE"].value


def c_cl_enum_value_lookup_error(x):
    y = x * 2
    try:
        _Color(9)
        found = 1
    except ValueError:
        found = 0
    return y + found + _Color(2).value


def c_cl_flag_operations(x):
    y = x + 1
    rw = _Perm.R | _Perm.W
    return y + rw.value + (_Perm.W in rw) + (_Perm.X in rw) + bool(rw & _Perm.X) + (~_Perm.R).value


def c_cl_intenum_arithmetic(x):
    y = x * 2
    return y * _Level.HIGH + (_Level.LOW + 1) + (_Level.HIGH > 2) + max(_Level).value + isinstance(_Level.LOW, int)


def c_cl_enum_alias_and_identity(x):
    y = x + 1
    return y + (_Shade.BLACK is _Shade.DARK) + len(list(_Shade)) + len(_Shade.__members__)


def c_cl_enum_in_dict_and_set(x):
    y = x * 2
    weights = {_Color.RED: 1, _Color.BLUE: 3}
    seen = {_Color.RED, _Color.RED, _Color.GREEN}
    return y + weights[_Color.BLUE] + len(seen) + weights.get(_Color.GREEN, 10)


def c_cl_enum_methods_and_properties(x):
    class Planet(enum.Enum):
        SMALL = (1, 2)
        LARGE = (5, 6)

        def __init__(self, mass, radius):
            self.mass = mass
            self.radius = radius

        @property
        def density(self):
            return self.mass / self.radius

    y = x + 1
    return y * Planet.LARGE.density + Planet.SMALL.mass


def c_cl_strenum_compare(x):
    class Kind(str, enum.Enum):  # noqa: UP042 (the mixin form is the construct)
        A = "a"
        B = "b"

    y = x * 2
    return y + (Kind.A == "a") + len(Kind.B.value) + ("b" in [k.value for k in Kind])



def c_cl_dataclass_defined_in_function(x):
    y = x * 2

    @dataclasses.dataclass
    class Pair:
        left: object
        right: object
        scale: int = 3

    p = Pair(y, x + 1)
    return p.left * p.scale + p.right, [f.name for f in dataclasses.fields(p)], repr(Pair(1, 2))


def c_cl_frozen_dataclass_defined_in_function(x):
    @dataclasses.dataclass(frozen=True)
    class Box:
        t: object

    b = Box(x.sin())
    try:
        b.t = x
    except dataclasses.FrozenInstanceError:
        return b.t + 1, "frozen"
    return b.t, "mutable"

CONSTRUCTS = [c_cl_match_literal_sequence_mapping, c_cl_match_class_positional, c_cl_match_builtin_class_patterns,
              c_cl_match_guard_and_capture, c_cl_match_on_tensor_shape, c_cl_match_value_pattern,
              c_cl_match_nested_mapping_rest, c_cl_bool_is_int, c_cl_bool_bitwise_results, c_cl_bool_constructor,
              c_cl_int_parse_bases, c_cl_int_parse_error, c_cl_int_floor_div_mod_signs, c_cl_int_bit_methods,
              c_cl_int_to_from_bytes, c_cl_int_big_arithmetic, c_cl_int_from_float_and_round, c_cl_int_subclass,
              c_cl_float_methods, c_cl_float_parse_special, c_cl_float_floor_div_mod, c_cl_float_repr_round,
              c_cl_float_zero_division, c_cl_math_integer_functions, c_cl_math_float_functions,
              c_cl_math_fsum_prod_dist, c_cl_math_isclose_and_constants, c_cl_math_domain_error,
              c_cl_math_on_tensor_item, c_cl_complex_arithmetic, c_cl_complex_parse_and_compare,
              c_cl_complex_pow_and_bool, c_cl_enum_auto_members, c_cl_enum_value_lookup_error, c_cl_flag_operations,
              c_cl_intenum_arithmetic, c_cl_enum_alias_and_identity, c_cl_enum_in_dict_and_set,
              c_cl_enum_methods_and_properties, c_cl_strenum_compare, c_cl_dataclass_defined_in_function,
              c_cl_frozen_dataclass_defined_in_function]
