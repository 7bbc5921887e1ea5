"""``ConstantMatch(s, v)``: ``s == v`` with ``v``'s exact type, and the type-strict equality of constants
(``const_eq``, ``const_key``, ``float_eq``) that both back ends and ``DictKeys`` use.
"""

from __future__ import annotations

import enum
import math
import types
from typing import Any

import torch

from ..sources import Source
from .base import Guard, _check_source, _OneSource, _set, short_repr, type_name
from .length import Length
from .none import IsNone, NotNone
from .type_match import TypeMatch

_TORCH_SINGLETONS = (torch.dtype, torch.layout, torch.memory_format)
#: Not constants, but ``DictKeys`` keys and ``SetMembers`` members compared by identity although their
#: type defines ``==`` (a builtin function equals another object for the same C function).
_BY_IDENTITY = (*_TORCH_SINGLETONS, types.BuiltinFunctionType)
_SCALARS = (bool, int, float, complex, str, bytes, range, type(None), type(Ellipsis))


def _constant_error(value: Any) -> str | None:
    """Why ``value`` cannot be a ConstantMatch constant (None when it can)."""
    tp = type(value)
    if tp in _SCALARS or tp in _TORCH_SINGLETONS or tp is torch.device:
        return None
    if isinstance(value, enum.Enum):
        try:
            hash(value)
        except TypeError:
            return f"enum member {value!r} is unhashable"
        return None
    if tp is tuple or tp is torch.Size or (isinstance(value, tuple) and hasattr(tp, "_fields")):
        for item in value:
            err = _constant_error(item)
            if err:
                return err
        return None
    if tp is frozenset or tp is set:
        for item in value:
            err = _constant_error(item)
            if err:
                return err
        return None
    try:
        hash(value)
    except TypeError:
        return f"{type_name(tp)} {short_repr(value)} is unhashable"
    return f"{type_name(tp)} {short_repr(value)} is not a constant"


def constant_by_value(value: Any) -> bool:
    """Whether ``ConstantMatch`` takes ``value`` (compares it by value); it refuses anything else."""
    return _constant_error(value) is None


def _float_key(x: float) -> str:
    return float.hex(x)


def is_nan_scalar(value: Any) -> bool:
    """Whether ``value`` is a float or complex holding a NaN."""
    tp = type(value)
    return (tp is float and value != value) or (tp is complex and (value.real != value.real
                                                                     or value.imag != value.imag))


def const_key(value: Any) -> Any:
    """A hashable key that tells apart constants ``==`` confuses (1, 1.0, True; 0.0, -0.0; nan). A NaN member
    of a tuple or set is keyed by its identity too (``member_eq``)."""
    return _key(value, member=False)


def _key(value: Any, member: bool) -> Any:
    tp = type(value)
    if member and is_nan_scalar(value):
        return (tp, "nan", id(value))
    if tp is float:
        return (float, _float_key(value))
    if tp is complex:
        return (complex, _float_key(value.real), _float_key(value.imag))
    if isinstance(value, tuple):
        return (tp, tuple(_key(v, True) for v in value))
    if tp is frozenset or tp is set:
        return (tp, frozenset(_key(v, True) for v in value))
    if isinstance(value, enum.Enum) or tp in _BY_IDENTITY:
        return (tp, id(value))
    return (tp, value)


def float_eq(a: float, b: float) -> bool:
    """Same float: equal with the same sign of zero, or both NaN."""
    if a == b:
        return a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b)
    return a != a and b != b


def const_eq(value: Any, expected: Any) -> bool:
    """Type-strict equality of a value with a constant (``3 != 3.0 != True``; ``-0.0 != 0.0``).

    ``value`` may be hostile: its type is checked before any of its methods runs.
    """
    if value is expected:
        return True
    tp = type(expected)
    if type(value) is not tp:
        return False
    if tp is float:
        return float_eq(value, expected)
    if tp is complex:
        return float_eq(value.real, expected.real) and float_eq(value.imag, expected.imag)
    if isinstance(expected, tuple):
        if tuple.__len__(value) != tuple.__len__(expected):
            return False
        return all(member_eq(a, b) for a, b in zip(tuple.__iter__(value), tuple.__iter__(expected)))
    if tp is frozenset or tp is set:
        return _set_eq(value, expected)
    if isinstance(expected, enum.Enum) or tp in _BY_IDENTITY:
        return False  # singletons, builtin functions: identity already failed
    return bool(value == expected)


def member_eq(value: Any, expected: Any) -> bool:
    """``const_eq`` of a container's member (a tuple item, a dict key): a NaN member matches only itself, since
    CPython compares members identity first (``(nan,) == (float("nan"),)`` is False, ``nan in (nan,)`` True)."""
    if value is expected:
        return True
    return not is_nan_scalar(expected) and const_eq(value, expected)


def _set_eq(value: Any, expected: Any) -> bool:
    """Type-strict equality of two sets (or frozensets) of constants: ``{True} != {1} != {1.0}``.

    ``==`` of sets compares members by hash and ``==``, which confuses exactly what ``const_eq`` tells
    apart, so the members' ``const_key`` sets are compared. A member whose type no expected member has
    fails first, so no method of an object that is not a constant runs.
    """
    if len(value) != len(expected):  # both exact sets or frozensets: no user code runs
        return False
    types_expected = {type(member) for member in expected}
    if any(type(member) not in types_expected for member in value):
        return False
    return const_key(value) == const_key(expected)


class ConstantMatch(_OneSource):
    """``source == value`` with the exact type of ``value`` (so ``3`` does not match ``3.0`` or ``True``).

    ``value`` must be a constant: None, bool, int, float, complex, str, bytes, range, Ellipsis, an enum
    member, torch.dtype / device / layout / memory_format, or a tuple (plain, named, torch.Size) or
    frozenset of constants. Floats compare by value with the sign of zero, and NaN matches NaN; a NaN member
    of a tuple or set matches only the same object (CPython compares members identity first).
    ``ConstantMatch(s, None)`` is ``IsNone(s)``. A ``set`` of constants is compared by its contents,
    against a copy taken at construction (the set may change between calls: that is what is checked);
    the members of sets and frozensets compare type-strictly too (``{True}`` does not match ``{1}``).
    """

    __slots__ = ("_ckey", "value")
    kind = "const"
    cost = 3

    def __new__(cls, source: Source, value: Any) -> Guard:
        if value is None:
            return IsNone(source)
        return super().__new__(cls)

    def __init__(self, source: Source, value: Any) -> None:
        _check_source("ConstantMatch", source)
        err = _constant_error(value)
        if err:
            raise TypeError(
                f"ConstantMatch needs a constant (None, bool, int, float, complex, str, bytes, enum, torch "
                f"dtype/device, or a tuple, frozenset or set of those): {err}; guard it with Identity or "
                f"TypeMatch instead"
            )
        if type(value) is set:
            value = set(value)  # a snapshot: the caller's set changing later must not change the guard
        _set(self, _source=source, value=value, _ckey=const_key(value))

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"{self._source} == {short_repr(self.value)}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if const_eq(value, self.value):
            return None
        seen = short_repr(value)
        if type(value) is not type(self.value):
            seen += f" ({type_name(type(value))})"
        return (self.describe(), seen)

    def implies(self) -> tuple[Guard, ...]:
        out: list[Guard] = [TypeMatch(self._source, type(self.value)), NotNone(self._source)]
        if isinstance(self.value, tuple):
            out.append(Length(self._source, len(self.value)))
        return tuple(out)
