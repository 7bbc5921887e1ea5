"""``TypeMatch(s, T)``: ``type(s) is T`` (exact: a subclass fails)."""

from __future__ import annotations

from typing import Any

from ..sources import Source
from .base import _DEAD, Guard, _check_source, _OneSource, _Ref, _set, type_name
from .none import IsNone, NotNone


class TypeMatch(_OneSource):
    """``type(source) is expected_type`` (exact: a subclass fails)."""

    __slots__ = ("_ref", "type_text")
    kind = "type"
    cost = 1

    def __new__(cls, source: Source, expected_type: type) -> Guard:
        if expected_type is type(None):
            return IsNone(source)  # the same check, one canonical form
        return super().__new__(cls)

    def __init__(self, source: Source, expected_type: type) -> None:
        _check_source("TypeMatch", source)
        if not isinstance(expected_type, type):
            raise TypeError(f"TypeMatch needs a type, got {type(expected_type).__name__} {expected_type!r}")
        _set(self, _source=source, _ref=_Ref(expected_type), type_text=type_name(expected_type))

    @property
    def expected_type(self) -> type | None:
        """The type (None once it died)."""
        obj = self._ref.get()
        return None if obj is _DEAD else obj

    def _key(self) -> tuple:
        return (self._source, self._ref.ident)

    @property
    def alive(self) -> bool:
        return self._ref.alive

    def describe(self) -> str:
        return f"type({self._source}) is {self.type_text}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if type(value) is self._ref.get():
            return None
        return (self.describe(), type_name(type(value)))

    def implies(self) -> tuple[Guard, ...]:
        return (NotNone(self._source),)
