"""``IsNone(s)`` / ``NotNone(s)``: ``s is None`` / ``s is not None``."""

from __future__ import annotations

from typing import Any

from ..sources import Source
from .base import _check_source, _OneSource, _set, short_repr


class IsNone(_OneSource):
    """``source is None``."""

    __slots__ = ()
    kind = "none"
    cost = 0

    def __init__(self, source: Source) -> None:
        _set(self, _source=_check_source("IsNone", source))

    def _key(self) -> tuple:
        return (self._source,)

    def describe(self) -> str:
        return f"{self._source} is None"

    def explain(self, value: Any) -> tuple[str, str] | None:
        return None if value is None else (self.describe(), short_repr(value))


class NotNone(_OneSource):
    """``source is not None``."""

    __slots__ = ()
    kind = "not_none"
    cost = 0

    def __init__(self, source: Source) -> None:
        _set(self, _source=_check_source("NotNone", source))

    def _key(self) -> tuple:
        return (self._source,)

    def describe(self) -> str:
        return f"{self._source} is not None"

    def explain(self, value: Any) -> tuple[str, str] | None:
        return None if value is not None else (self.describe(), "None")
