"""``DictContains(s, key, present=True)``: ``key in s`` / ``key not in s`` for a dict (or any mapping)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..sources import Source
from .base import Guard, _check_source, _OneSource, _set, object_text, short_repr, type_name
from .constant import _constant_error, const_key
from .none import NotNone

_MISSING = object()


def is_mapping(value: Any) -> bool:
    """Whether ``DictContains`` looks into ``value``: an exact dict, or anything ``isinstance`` calls a
    ``Mapping`` (dict subclasses, ``mappingproxy``, user mappings). The accelerator asks the same two
    questions in the same order."""
    return type(value) is dict or isinstance(value, Mapping)


class DictContains(_OneSource):
    """``key in source`` (``present=True``) or ``key not in source`` (``present=False``).

    The source's value is a dict - typically an object's instance dict, ``Attr(L['m'], "__dict__")``,
    guarded absent so that a class attribute (a method) found through the instance stays the one the
    trace used - or a plain dict. ``in`` is Python's: hash and ``==``, as an attribute or dict lookup
    sees keys (``1``, ``1.0`` and ``True`` are one key). An exact dict is looked up directly; any other
    ``Mapping`` (a dict subclass, a ``mappingproxy``, a user mapping) through its own ``__contains__``.
    A value that is not a mapping (None, a list, an object) fails the guard either way, as does a lookup
    that raises.

    ``key`` must be a constant, as for ``ConstantMatch`` (str, int, bytes, enum, tuples of constants...).
    """

    __slots__ = ("_ckey", "key", "present")
    kind = "dict_contains"
    cost = 3

    def __init__(self, source: Source, key: Any, present: bool = True) -> None:
        _check_source("DictContains", source)
        err = _constant_error(key)
        if err:
            raise TypeError(f"DictContains needs a constant key (str, int, bytes, enum, ...): {err}")
        if type(present) is not bool:
            raise TypeError(f"DictContains present= must be a bool, got {type(present).__name__} {present!r}")
        _set(self, _source=source, key=key, present=present, _ckey=const_key(key))

    def _key(self) -> tuple:
        return (self._source, self._ckey, self.present)

    def describe(self) -> str:
        return f"{short_repr(self.key)} {'in' if self.present else 'not in'} {self._source}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if not is_mapping(value):
            return (self.describe(), f"{short_repr(value)} ({type_name(type(value))}), not a mapping")
        if (self.key in value) is self.present:
            return None
        is_dict = issubclass(type(value), dict)  # its own entries, without running its methods
        if self.present:
            if is_dict:
                return (self.describe(), f"no such key (keys: {short_repr(list(dict.__iter__(value)))})")
            return (self.describe(), "no such key")
        found = dict.get(value, self.key, _MISSING) if is_dict else _MISSING
        if found is _MISSING:
            return (self.describe(), "the key")
        return (self.describe(), f"the key (value: {object_text(found)})")

    def implies(self) -> tuple[Guard, ...]:
        return (NotNone(self._source),)
