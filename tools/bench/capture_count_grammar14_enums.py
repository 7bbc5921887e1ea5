"""Enums as CPython's test_enum exercises them (PyTorch's Dynamo suite, ``test/dynamo/cpython/3_13/``), for
``capture_count.py --only grammar14``: members with ``__init__`` attributes and properties, a ``bytes`` mix-in
with ``__new__`` and ``_value_``, ``_generate_next_value_``, ``IntFlag`` iteration, ``StrEnum``, ``nonmember``,
``__members__``, members as keys, cross-type comparisons, reprs and dtype-valued members.
"""

from __future__ import annotations

import enum

import torch


class _Planet(enum.Enum):
    MERCURY = (3.303e+23, 2.4397e6)
    EARTH = (5.976e+24, 6.37814e6)

    def __init__(self, mass, radius):
        self.mass = mass
        self.radius = radius

    @property
    def surface_gravity(self):
        return 6.673e-11 * self.mass / (self.radius * self.radius)


class _Coord(bytes, enum.Enum):
    def __new__(cls, value, label):
        obj = bytes.__new__(cls, [value])
        obj._value_ = value
        obj.label = label
        return obj

    PX = (0, "P.X")
    PY = (1, "P.Y")


class _Auto(enum.Enum):
    def _generate_next_value_(name, start, count, last_values):
        return name.lower()

    A = enum.auto()
    B = enum.auto()


class _Flags(enum.IntFlag):
    R = 1
    G = 2
    B = 4


class _Shade(enum.StrEnum):
    DARK = enum.auto()
    LIGHT = enum.auto()


class _WithNonmember(enum.Enum):
    A = 1
    B = 2
    helper = enum.nonmember(10)


def c_grammar14_enum_planet_attrs(x):
    return x * _Planet.EARTH.surface_gravity, _Planet.MERCURY.mass, _Planet.EARTH.value


def c_grammar14_enum_bytes_mixin_new(x):
    return x + _Coord.PY.value, _Coord.PY.label, _Coord(1) is _Coord.PY, bytes(_Coord.PX)


def c_grammar14_enum_generate_next_value(x):
    return x + len(_Auto.A.value), [m.value for m in _Auto]


def c_grammar14_enum_intflag_iter_and_str(x):
    c = _Flags.R | _Flags.B
    return x * int(c), [m.name for m in c], c.value, _Flags(6).name, len(c)


def c_grammar14_enum_strenum_format(x):
    return x + len(_Shade.DARK), f"{_Shade.LIGHT}", _Shade.DARK.upper(), _Shade("dark") is _Shade.DARK


def c_grammar14_enum_nonmember(x):
    return x + _WithNonmember.helper, len(_WithNonmember), [m.name for m in _WithNonmember]


def c_grammar14_enum_members_items(x):
    total = x
    for name, member in _Planet.__members__.items():
        total = total + len(name) + member.radius * 0
    return total


def c_grammar14_enum_enum_as_dict_key_and_in(x):
    d = {_Flags.R: x, _Flags.G: x * 2}
    return d[_Flags.G] + d[_Flags.R], _Flags.R in d, _Flags.B in _Flags.R | _Flags.B


def c_grammar14_enum_enum_compare_different(x):
    return x + 1, _Flags.R == 1, _Planet.EARTH == _Planet.EARTH, _Planet.EARTH != _Planet.MERCURY, _Auto.A == "a"


def c_grammar14_enum_enum_dir_and_class(x):
    return x + 1, type(_Flags.R).__name__, _Flags.R.__class__ is _Flags, isinstance(_Flags.R, int), _Flags.R.__class__.__mro__[1].__name__


def c_grammar14_enum_enum_reprs(x):
    return x + 1, repr(_Planet.EARTH)[:14], str(_Auto.B), _Auto.B.name


def c_grammar14_enum_enum_tensor_dtype_table(x):
    class Prec(enum.Enum):
        HALF = torch.float16
        FULL = torch.float32

    return x.to(Prec.HALF.value).float() + 1, Prec(torch.float32).name


CONSTRUCTS = [c_grammar14_enum_planet_attrs, c_grammar14_enum_bytes_mixin_new, c_grammar14_enum_generate_next_value,
              c_grammar14_enum_intflag_iter_and_str, c_grammar14_enum_strenum_format, c_grammar14_enum_nonmember,
              c_grammar14_enum_members_items, c_grammar14_enum_enum_as_dict_key_and_in,
              c_grammar14_enum_enum_compare_different, c_grammar14_enum_enum_dir_and_class,
              c_grammar14_enum_enum_reprs, c_grammar14_enum_enum_tensor_dtype_table]
