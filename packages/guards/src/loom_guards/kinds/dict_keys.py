"""``DictKeys(s, keys)``: the same keys in the same order (type-strict), ``dict_keys_of`` and
``compared_by_identity`` (the keys besides constants that it takes)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..sources import Source
from .base import Guard, _check_source, _OneSource, _set, short_repr
from .constant import _constant_error, const_eq, const_key
from .length import Length
from .none import NotNone


def compared_by_identity(key: Any) -> bool:
    """Whether ``key`` uses object's (or type's) own hash and equality: classes, functions, typing
    forms. The check compares such a key by identity, which is what a dict does with it."""
    cls = type(key)
    return cls.__hash__ in (object.__hash__, type.__hash__) and cls.__eq__ in (object.__eq__, type.__eq__)


def dict_keys_of(value: Any) -> tuple:
    """The keys of a mapping in iteration order (a plain dict without calling any of its methods)."""
    if type(value) is dict:
        return tuple(dict.__iter__(value))
    keys = tuple(value.keys())
    if len(value) != len(keys):
        raise ValueError("len() disagrees with keys()")
    return keys


class DictKeys(_OneSource):
    """``list(source.keys()) == keys``: the same keys in the same order (a dict or any mapping)."""

    __slots__ = ("_ckey", "keys")
    kind = "dict_keys"
    cost = 4

    def __init__(self, source: Source, keys: Iterable[Any]) -> None:
        _check_source("DictKeys", source)
        if isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable):
            raise TypeError(f"DictKeys needs an iterable of keys, got {type(keys).__name__}")
        keys = tuple(keys)
        for key in keys:
            err = _constant_error(key)
            if err and not compared_by_identity(key):
                raise TypeError(f"DictKeys keys must be constants or objects compared by identity: {err}")
        _set(self, _source=source, keys=keys, _ckey=const_key(keys))

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"list({self._source}.keys()) == {short_repr(list(self.keys))}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        seen = dict_keys_of(value)
        if const_eq(seen, self.keys):
            return None
        return (self.describe(), short_repr(list(seen)))

    def implies(self) -> tuple[Guard, ...]:
        return (Length(self._source, len(self.keys)), NotNone(self._source))
