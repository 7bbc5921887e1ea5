"""Sources that reach a value through an object's own answer about itself, read without side effects:
the referent of a weak reference, the sequence and position a list or tuple iterator resumes from.

They hang off a base source like ``Attr`` does; the compiled checks read them through ``read_from``.
"""

from __future__ import annotations

import weakref
from typing import Any

from .sources import _Chained, _check_base, _set_chained

#: The iterators whose ``__reduce__`` is ``(iter, (sequence,), index)`` (``(iter, ((),))`` once exhausted)
#: and whose ``__setstate__(index)`` moves them: the C list and tuple iterators.
POSITIONED_ITERATORS = (type(iter([])), type(iter(())))


class WeakReferent(_Chained):
    """``base()`` for a ``weakref.ref``: the object it refers to, or None once that object is gone."""

    __slots__ = ()
    fetch_cost = 2

    def __init__(self, base: Any) -> None:
        _set_chained(self, _check_base("WeakReferent", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value: Any) -> Any:
        if type(base_value) is not weakref.ref:
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a weakref.ref")
        return base_value()

    def __str__(self) -> str:
        return f"{self._base}()"


class IteratorState(_Chained):
    """What a list or tuple iterator resumes from: ``part`` is ``"sequence"`` (the list or tuple it
    walks, ``()`` once exhausted) or ``"index"`` (the position of its next item), read from its
    ``__reduce__``, which neither advances nor copies it."""

    __slots__ = ("part",)
    fetch_cost = 3

    def __init__(self, base: Any, part: str) -> None:
        if part not in ("sequence", "index"):
            raise ValueError(f"IteratorState part must be 'sequence' or 'index', got {part!r}")
        _set_chained(self, _check_base("IteratorState", base), "part", part)

    def _key(self) -> tuple:
        return (self._base, self.part)

    def _args(self) -> tuple:
        return (self._base, self.part)

    def read_from(self, base_value: Any) -> Any:
        if type(base_value) not in POSITIONED_ITERATORS:
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a list or tuple iterator")
        reduced = base_value.__reduce__()
        if self.part == "sequence":
            return reduced[1][0]
        return reduced[2] if len(reduced) > 2 else 0

    def __str__(self) -> str:
        return f"{self._base}.__reduce__()" + ("[1][0]" if self.part == "sequence" else "[2]")
