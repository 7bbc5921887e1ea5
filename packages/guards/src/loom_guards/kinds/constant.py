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
    if tp is frozenset or tp is set:  # in iteration order: two sets iterating differently are different keys
        return (tp, tuple(_key(v, True) for v in value))
    if isinstance(value, enum.Enum) or tp in _BY_IDENTITY:
        return (tp, id(value))
    return (tp, value)


def holds_set(value: Any) -> bool:
    """Whether a constant is, or holds at any depth, a set or frozenset."""
    if type(value) is set or type(value) is frozenset:
        return True
    return isinstance(value, tuple) and any(holds_set(item) for item in value)


def _in_order(value: Any) -> Any:
    if type(value) is set or type(value) is frozenset or isinstance(value, tuple):
        return tuple(_in_order(item) for item in value)
    return value


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
        return _set_eq(value, tuple(expected))
    if isinstance(expected, enum.Enum) or tp in _BY_IDENTITY:
        return False  # singletons, builtin functions: identity already failed
    return bool(value == expected)


def member_eq(value: Any, expected: Any) -> bool:
    """``const_eq`` of a container's member (a tuple item, a dict key): a NaN member matches only itself, since
    CPython compares members identity first (``(nan,) == (float("nan"),)`` is False, ``nan in (nan,)`` True)."""
    if value is expected:
        return True
    return not is_nan_scalar(expected) and const_eq(value, expected)


def _set_eq(value: Any, expected_order: tuple) -> bool:
    """Type-strict equality of a set (or frozenset) with constants ``expected_order`` that also iterates them in
    that order: ``{True} != {1} != {1.0}``, and ``{9, 1}`` (9 added first, so both in slot 1 of the table) does
    not match ``{1, 9}``.

    A set's iteration order follows its history, not only its members, and a trace that iterated it baked
    that order in; equal members in another order must recompile. ``member_eq`` checks each member's type
    before any of its methods runs, so no method of an object that is not a constant runs.
    """
    if len(value) != len(expected_order):  # an exact set or frozenset: no user code runs
        return False
    return all(member_eq(a, b) for a, b in zip(value, expected_order))


class ConstantMatch(_OneSource):
    """``source == value`` with the exact type of ``value`` (so ``3`` does not match ``3.0`` or ``True``).

    ``value`` must be a constant: None, bool, int, float, complex, str, bytes, range, Ellipsis, an enum
    member, torch.dtype / device / layout / memory_format, or a tuple (plain, named, torch.Size) or
    frozenset of constants. Floats compare by value with the sign of zero, and NaN matches NaN; a NaN member
    of a tuple or set matches only the same object (CPython compares members identity first).
    ``ConstantMatch(s, None)`` is ``IsNone(s)``. A ``set`` of constants is compared by its contents,
    against a copy taken at construction (the set may change between calls: that is what is checked);
    the members of sets and frozensets compare type-strictly too (``{True}`` does not match ``{1}``), and in
    iteration order (equal sets iterating differently do not match: a trace may have iterated it).
    """

    __slots__ = ("_ckey", "_set_order", "value")
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
        # a set's members in its iteration order, before the snapshot: a copy may iterate in another order
        order = tuple(value) if type(value) is set else None
        ckey = const_key(value)
        if order is not None:
            value = set(value)  # a snapshot: the caller's set changing later must not change the guard
        _set(self, _source=source, value=value, _ckey=ckey, _set_order=order)

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"{self._source} == {short_repr(self.value)}"

    @property
    def in_order(self) -> Any:
        """The constant with each set or frozenset in it written as the tuple of its members in the order
        this guard matches them (a set's snapshot may iterate in another order than the set it copied)."""
        if self._set_order is not None:
            return tuple(_in_order(member) for member in self._set_order)
        return _in_order(self.value)

    def _matches(self, value: Any) -> bool:
        if self._set_order is not None:
            return type(value) is set and _set_eq(value, self._set_order)
        return const_eq(value, self.value)

    def explain(self, value: Any) -> tuple[str, str] | None:
        if self._matches(value):
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
