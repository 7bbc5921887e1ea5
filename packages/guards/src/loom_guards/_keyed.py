"""The value-object base shared by sources and guards: immutable, compared and hashed by a key."""

from __future__ import annotations

from typing import Any


class Keyed:
    """An immutable object equal to another of the same class with the same :meth:`_key`."""

    __slots__ = ("_hash",)

    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        # Cached: guards and sources are hashed again and again while a guard set is simplified.
        # Constructors set ``_hash`` to None (see ``_set``): a first read that raised would cost ~1 µs.
        try:
            h = self._hash
        except AttributeError:
            h = None
        if h is None:
            h = hash((type(self).__name__, self._key()))
            object.__setattr__(self, "_hash", h)
        return h

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    def __delattr__(self, name: str) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")
