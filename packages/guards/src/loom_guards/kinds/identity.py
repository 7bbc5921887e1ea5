"""``Identity(s, obj)``: ``s is obj`` (functions, modules, classes, global objects), held weakly."""

from __future__ import annotations

from typing import Any

from ..sources import Source
from .base import _DEAD, Guard, _check_source, _OneSource, _Ref, _set, object_text
from .none import IsNone, NotNone
from .type_match import TypeMatch


class Identity(_OneSource):
    """``source is obj``: for functions, modules, classes and global objects.

    The guard holds ``obj`` weakly when it can: it does not keep a module alive, and once ``obj`` died
    the guard fails for ever (``alive`` turns False).
    """

    __slots__ = ("_ref", "_type_ref")
    kind = "id"
    cost = 1

    def __new__(cls, source: Source, obj: Any) -> Guard:
        if obj is None:
            return IsNone(source)  # the same check, one canonical form
        return super().__new__(cls)

    def __init__(self, source: Source, obj: Any) -> None:
        _set(self, _source=_check_source("Identity", source), _ref=_Ref(obj), _type_ref=_Ref(type(obj)))

    @property
    def obj(self) -> Any:
        """The object (None once it died)."""
        obj = self._ref.get()
        return None if obj is _DEAD else obj

    @property
    def alive(self) -> bool:
        return self._ref.alive

    def _key(self) -> tuple:
        return (self._source, self._ref.ident)

    def describe(self) -> str:
        return f"{self._source} is {self._ref.text} (id {self._ref.ident:#x})"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if value is self._ref.get():
            return None
        return (f"{self._source} is {self._ref.text}", f"{object_text(value)} (id {id(value):#x})")

    def implies(self) -> tuple[Guard, ...]:
        tp = self._type_ref.get()
        if tp is _DEAD:
            return (NotNone(self._source),)
        return (TypeMatch(self._source, tp), NotNone(self._source))
