"""Dict keys and set members that hash and compare by value although only the trace holds them: an
instance of a frozen dataclass made while tracing, whose fields are constants. ``dataclasses`` writes
its ``__eq__`` (same class, equal field tuples) and ``__hash__`` (the hash of that tuple), so the key is
that class and those values; another instance with the same class and fields finds the same entry. A bound
method (``obj.method``): CPython hashes and compares it by its function and the identity of its object, so
``obj.method`` read twice finds the same entry."""

from __future__ import annotations

import dataclasses
import math
import types
from typing import Any

from .base import Variable
from .container_tables import IdentityKey


class ValueKey(IdentityKey):
    """An :class:`IdentityKey` whose identity is ``(class, field values)``: equal to another with equal ones."""

    __slots__ = ()

    def __hash__(self) -> int:
        return hash(self.identity)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ValueKey) and other.identity == self.identity


def value_key(key: Variable) -> ValueKey | None:
    """The :class:`ValueKey` of ``key``, or None when it is not a frozen dataclass instance made while
    tracing with generated ``__eq__``/``__hash__`` and constant fields."""
    identity = _identity(key)
    return ValueKey(key, identity) if identity is not None else None


def method_key(key: Variable) -> ValueKey | None:
    """The :class:`ValueKey` of a bound method of a Python function, ``(function, its object by identity)``;
    None for anything else, or an object the trace cannot tell apart by identity."""
    fn = getattr(getattr(key, "function", None), "value", None)
    receiver = getattr(key, "receiver", None)
    if key.python_type() is not types.MethodType or not isinstance(fn, types.FunctionType) or receiver is None:
        return None
    if receiver.source is not None or not receiver.mutable or getattr(receiver, "wraps_real_object", False):
        return None  # from the frame: which object it is would need its own guard
    return ValueKey(key, (fn, IdentityKey(receiver, receiver)))


_ABSENT = object()


def _identity(key: Variable) -> tuple | None:
    # an object of a plain Python class made while tracing (NewObjectVariable, which imports the
    # mappings this module serves: told apart by what only it has, ``stands_for``)
    if getattr(key, "stands_for", _ABSENT) is not None or key.source is not None or not isinstance(key.attrs, dict):
        return None
    cls = key.cls
    if not (_generated(cls, "__eq__") and _generated(cls, "__hash__")):
        return None
    values = []
    for field in dataclasses.fields(cls):
        if not field.compare:
            continue
        value = key.attrs.get(field.name)
        if value is None:
            return None
        if value.is_python_constant():
            constant = value.as_python_constant()
            if not _plain_constant(constant):
                return None
            values.append(constant)
            continue
        nested = _identity(value)  # a frozen dataclass inside one
        if nested is None:
            return None
        values.append(nested)
    return (cls, tuple(values))


def _generated(cls: type, name: str) -> bool:
    """Whether the class of ``cls``'s MRO that defines ``name`` is a dataclass whose ``name`` dataclasses wrote."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            method = klass.__dict__[name]
            code = getattr(method, "__code__", None)
            params = klass.__dict__.get("__dataclass_params__")
            return (code is not None and code.co_filename == "<string>" and params is not None and params.eq
                    and (params.frozen or params.unsafe_hash))
    return False


def _plain_constant(value: Any) -> bool:
    """A value whose equality does not depend on object identity (NaN does: ``(nan,) == (nan,)`` is
    True only for the same float object)."""
    if isinstance(value, float):
        return not math.isnan(value)
    if isinstance(value, (tuple, frozenset)):
        return all(_plain_constant(v) for v in value)
    return isinstance(value, (int, str, bytes, bool, type(None)))
