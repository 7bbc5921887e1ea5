"""A dict's values iterator from outside the frame (``iter(d.values())`` passed in, kept on an object or in a
global), walked in the graph as the keys and items iterators are (:class:`.outside_iterators.PositionedDictIterator`).

Its ``__reduce__`` lists the values still to come, which say nothing of its position by themselves; the dict it
walks (found through the garbage collector's referents, as for the keys iterator) does: the iterator yields the
dict's last ``len(rest)`` values, which is checked value by value (by identity) on each read. The keys it will
yield are then the dict's last keys, guarded as a constant (:class:`ValuesIteratorState`); an iterator whose dict
changed under it (so that CPython's answer depends on the dict's memory) reads as unverifiable and stays opaque.
"""

from __future__ import annotations

import gc
from typing import Any

from loom_guards.sources import _Chained, _set_chained

from .constant import is_constant_value
from .containers import DictVariable
from .outside_iterators import PositionedDictIterator
from .registry import add_exact_type, add_rule, wrap
from .wrap_rules import _iterator_from_frame, _object_variable

_VALUES_ITERATOR = type(iter({}.values()))


class ValuesIteratorState(_Chained):
    """What a dict values iterator resumes from, read without advancing it: ``"dict"`` is the dict it walks
    (``{}`` once exhausted), ``"keys"`` the tuple of keys whose values it will yield (None when its values are not
    the dict's last ones, one by one: the dict changed under it)."""

    __slots__ = ("part",)
    fetch_cost = 3

    def __init__(self, base: Any, part: str) -> None:
        if part not in ("dict", "keys"):
            raise ValueError(f"ValuesIteratorState part must be 'dict' or 'keys', got {part!r}")
        _set_chained(self, base, "part", part)

    def _key(self) -> tuple:
        return (self._base, self.part)

    def _args(self) -> tuple:
        return (self._base, self.part)

    def read_from(self, base_value: Any) -> Any:
        if type(base_value) is not _VALUES_ITERATOR:
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a dict_valueiterator")
        walked = next((r for r in gc.get_referents(base_value) if type(r) is dict), {})
        return walked if self.part == "dict" else _keys_to_come(base_value, walked)

    def __str__(self) -> str:
        return f"<the {self.part} {self._base} walks>" if self.part == "dict" else f"<the keys {self._base} will yield>"


def _keys_to_come(iterator: Any, walked: dict) -> tuple | None:
    try:
        rest = iterator.__reduce__()[1][0]  # walks a copy: it raises where the real one would
    except RuntimeError:
        return None
    start = len(walked) - len(rest)
    values = list(walked.values())[start:] if start >= 0 else None
    if values is None or len(values) != len(rest) or any(a is not b for a, b in zip(values, rest)):
        return None
    return tuple(list(walked)[start:])


def _wrap_values_iterator(tx, value: Any, source: Any) -> Any:
    def make() -> Any:
        keys = ValuesIteratorState(source, "keys").read_from(value)
        walked = ValuesIteratorState(source, "dict").read_from(value)
        if keys is None or not all(is_constant_value(k) for k in keys):
            return _object_variable(tx, value, source)
        tx.output.guards.add("type", source, value)
        tx.output.guards.add("constant", ValuesIteratorState(source, "keys"), keys)
        target = wrap(tx, walked, ValuesIteratorState(source, "dict"))
        if not isinstance(target, DictVariable):
            return _object_variable(tx, value, source)
        return PositionedDictIterator(target, "values", len(walked) - len(keys), type(value), source)

    return _iterator_from_frame(tx, value, source, make)


# after the keys and items iterators' rule (100), before the wrapping iterators' (105)
add_rule(103, lambda v: type(v) is _VALUES_ITERATOR, _wrap_values_iterator)
add_exact_type(_VALUES_ITERATOR, _wrap_values_iterator)
