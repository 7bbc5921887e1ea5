"""Enum classes read while tracing: ``Mode(1)`` (a member looked up by value), iterating ``Mode`` and
``Mode.__members__``; and ``Enum("Mode", "TRAIN EVAL")`` (the functional API), a class made while tracing.

An enum's members are fixed when its class is made, so both answers are read from the real class
while tracing; they are constants of the trace (the class itself is guarded where it is loaded). Only
the lookups ``enum`` itself defines are read: a metaclass of the user's keeps the break. A class with a
``_missing_`` of the user's has ``Enum.__new__`` inlined instead (:func:`new_by_value`), which asks it as
enum does.
"""

from __future__ import annotations

import enum
from typing import Any

_UNSET = object()


def _standard(cls: Any) -> bool:
    """An Enum class whose call and iteration are ``enum``'s own."""
    meta = type(cls)
    return (isinstance(cls, enum.EnumMeta) and meta.__call__ is enum.EnumMeta.__call__
            and meta.__iter__ is enum.EnumMeta.__iter__ and meta.__len__ is enum.EnumMeta.__len__)


def members(cls: Any) -> list[Any] | None:
    """``list(cls)`` for an Enum class iterated as ``enum`` does, else None."""
    return list(cls) if _standard(cls) else None


def reads_members(cls: Any) -> bool:
    """Whether ``cls.__members__`` is ``enum``'s own property of the metaclass (a read-only view of the
    members by name, aliases included)."""
    return _standard(cls) and getattr(type(cls), "__members__", None) is enum.EnumMeta.__members__


#: ``_missing_`` of enum's own: Enum's raises; Flag's makes a combination of members (``Mode(3)``) and keeps it in
#: the class's ``_value2member_map_``, a cache whose entry eager's first call makes as the trace's call does.
_LIBRARY_MISSING = (enum.Enum._missing_.__func__, enum.Flag._missing_.__func__)


def lookup(cls: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """The member ``cls(value)`` returns for constant ``args``, for an Enum class with ``enum``'s own
    lookup and an existing member; ``MISSING`` otherwise (a functional-API call, a value with no member)."""
    if kwargs or len(args) != 1 or not _standard(cls) or not cls.__members__:
        return _UNSET
    if getattr(cls._missing_, "__func__", None) not in _LIBRARY_MISSING:
        return _UNSET  # a user's _missing_: not a plain lookup
    if cls.__new__ is not enum.Enum.__new__:
        return _UNSET
    try:  # with enum's own __call__, __new__ and _missing_ and a constant value: a pure lookup
        return cls(args[0])
    except (ValueError, TypeError):
        return _UNSET  # the error is raised where it is, by the real call


def new_by_value(cls: Any, args: list[Any], kwargs: dict[str, Any]) -> Any:
    """``Enum.__new__`` (a Python function, for the trace to inline) where ``cls(value)`` is enum's own
    metaclass call handing ``value`` to it, else None. Flags are left out: their ``_missing_`` makes and
    stores pseudo-members in the class."""
    if kwargs or len(args) != 1 or not _standard(cls) or not cls.__members__ or issubclass(cls, enum.Flag):
        return None
    if cls.__new__ is not enum.Enum.__new__:
        return None
    return enum.Enum.__new__


def functional_class(cls: Any, args: list[Any], kwargs: dict[str, Any], module: str) -> Any:
    """``Enum("Color", names, ...)`` (enum's functional API) on one of ``enum``'s own classes with constant
    arguments: the new class, made now, as a ``namedtuple`` class is made while tracing (the compiled code
    keeps that one class); ``module`` is the caller's module, which enum would read from the calling frame.
    None where the call is something else, or raises (it then runs as Python, raising there)."""
    if getattr(cls, "__module__", None) != "enum" or type(cls) is not enum.EnumMeta or not _standard(cls):
        return None
    if cls.__members__ or (len(args) < 2 and "names" not in kwargs) or len(args) > 2:
        return None
    if kwargs.get("type") not in (None, int, str, float):
        return None  # a mixin of the user's: its methods could run while the class is made
    try:
        return cls(*args, **{"module": module, **kwargs})
    except (TypeError, ValueError):
        return None


MISSING = _UNSET
