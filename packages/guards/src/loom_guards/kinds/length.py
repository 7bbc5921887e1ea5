"""``Length(s, n)``: ``len(s) == n``."""

from __future__ import annotations

from typing import Any

from ..sources import Source
from .base import Guard, _check_source, _OneSource, _set
from .none import NotNone


class Length(_OneSource):
    """``len(source) == n``."""

    __slots__ = ("n",)
    kind = "len"
    cost = 2

    def __init__(self, source: Source, n: int) -> None:
        _check_source("Length", source)
        if type(n) is not int:
            raise TypeError(f"Length needs an int, got {type(n).__name__} {n!r}")
        if n < 0:
            raise ValueError(f"Length needs a length >= 0, got {n}")
        _set(self, _source=source, n=n)

    def _key(self) -> tuple:
        return (self._source, self.n)

    def describe(self) -> str:
        return f"len({self._source}) == {self.n}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        n = len(value)
        return None if n == self.n else (self.describe(), str(n))

    def implies(self) -> tuple[Guard, ...]:
        return (NotNone(self._source),)
