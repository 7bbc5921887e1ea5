"""``DictKeys(s, keys)``: the same keys in the same order (type-strict), ``dict_keys_of``,
``compared_by_identity`` and ``guarded_by_identity`` (the keys besides constants that it takes)."""

from __future__ import annotations

import types
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


def module_builtin(value: Any) -> bool:
    """Whether ``value`` is a builtin function of a module (``len``, ``math.sqrt``) or one with no
    ``__self__`` (``torch.sin``, a static method of a C class). Such a function hashes and compares by
    the C function and the identity of its owner (no user code runs), and is made once, when its
    module is, so a guard may compare it by identity: a second object for the same function (equal,
    not identical) fails the guard, which only costs a recompile. A builtin method bound to an instance
    or a class is left out: each attribute read makes a new one, which would recompile every call."""
    if type(value) is not types.BuiltinFunctionType:
        return False
    owner = value.__self__
    return owner is None or isinstance(owner, types.ModuleType)


def guarded_by_identity(value: Any) -> bool:
    """Whether a dict key or set member that is no constant is guarded by identity: it is
    ``compared_by_identity`` or a ``module_builtin``."""
    return compared_by_identity(value) or module_builtin(value)


def dict_keys_of(value: Any) -> tuple:
    """The keys of a mapping in iteration order (a plain dict without calling any of its methods)."""
    if type(value) is dict:
        return tuple(dict.__iter__(value))
    keys = tuple(value.keys())
    if len(value) != len(keys):
        raise ValueError("len() disagrees with keys()")
    return keys


class DictKeys(_OneSource):
    """``list(source.keys()) == keys``: the same keys in the same order (a dict or any mapping).

    Keys are constants (compared type-strictly) or objects ``guarded_by_identity`` (compared by
    identity: a builtin function equal to a key without being it fails the guard)."""

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
            if err and not guarded_by_identity(key):
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
