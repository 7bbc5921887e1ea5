"""Sources that reach a value through an object's own answer about itself, read without side effects:
the referent of a weak reference, the sequence and position a list or tuple iterator resumes from, a
dict's value by position.

They hang off a base source like ``Attr`` does; the compiled checks read them through ``read_from``.
"""

from __future__ import annotations

import collections
import gc
import itertools
import types
import weakref
from typing import Any

from .sources import _Chained, _check_base, _set_chained

#: The iterators whose ``__reduce__`` is ``(iter, (sequence,), index)`` (``(iter, ((),))`` once exhausted)
#: and whose ``__setstate__(index)`` moves them: the C list and tuple iterators.
POSITIONED_ITERATORS = (type(iter([])), type(iter(())))
#: The dict iterators whose ``__reduce__`` lists the keys still to come (``(iter, ([key or (key, value)...],))``):
#: over keys and over items. (The values iterator lists values, which say nothing of its position.)
DICT_ITERATORS = (type(iter({})), type(iter({}.items())))
#: The range iterator (a range within the C long): its ``__reduce__`` is ``(iter, (range,), index)`` up to 3.11
#: and ``(iter, (the range left,), None)`` from 3.12, so its part is the range still to come, read either way.
RANGE_ITERATORS = (type(iter(range(0))),)


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
    """What a C iterator resumes from, read without advancing it. For a list or tuple iterator,
    ``part`` is ``"sequence"`` (the list or tuple it walks, ``()`` once exhausted) or ``"index"`` (the
    position of its next item), from its ``__reduce__``. For a dict's keys or items iterator,
    ``"dict"`` is the dict it walks (``{}`` once exhausted, found through the garbage collector's
    referents, as the iterator holds no Python-visible reference) and ``"keys"`` the tuple of keys it
    will yield, from its ``__reduce__`` (which walks a copy). For a range iterator, ``"range"`` is the range
    of the numbers it has left."""

    __slots__ = ("part",)
    fetch_cost = 3

    def __init__(self, base: Any, part: str) -> None:
        if part not in _PARTS:
            raise ValueError(f"IteratorState part must be one of {sorted(_PARTS)}, got {part!r}")
        _set_chained(self, _check_base("IteratorState", base), "part", part)

    def _key(self) -> tuple:
        return (self._base, self.part)

    def _args(self) -> tuple:
        return (self._base, self.part)

    def read_from(self, base_value: Any) -> Any:
        kinds, read = _PARTS[self.part]
        if type(base_value) not in kinds:
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not one of {[k.__name__ for k in kinds]}")
        return read(base_value)

    def __str__(self) -> str:
        return _TEXT[self.part].format(self._base)


def _sequence(it: Any) -> Any:
    return it.__reduce__()[1][0]


def _index(it: Any) -> int:
    reduced = it.__reduce__()
    return reduced[2] if len(reduced) > 2 else 0


def _dict(it: Any) -> dict:
    return next((r for r in gc.get_referents(it) if type(r) is dict), {})


def _range_left(it: Any) -> range:
    reduced = it.__reduce__()
    index = reduced[2] if len(reduced) > 2 and reduced[2] is not None else 0
    return reduced[1][0][index:]


def _keys(it: Any) -> tuple:
    rest = it.__reduce__()[1][0]
    return tuple(rest) if type(it) is DICT_ITERATORS[0] else tuple(key for key, _ in rest)


#: part → (the iterator types it applies to, how it is read)
_PARTS = {
    "sequence": (POSITIONED_ITERATORS, _sequence),
    "index": (POSITIONED_ITERATORS, _index),
    "dict": (DICT_ITERATORS, _dict),
    "keys": (DICT_ITERATORS, _keys),
    "range": (RANGE_ITERATORS, _range_left),
}
_TEXT = {
    "sequence": "{}.__reduce__()[1][0]",
    "index": "{}.__reduce__()[2]",
    "dict": "<the dict {} walks>",
    "keys": "<the keys {} will yield>",
    "range": "<the range {} has left>",
}


def builtin_base(cls: type) -> type:
    """The first builtin container class in ``cls``'s MRO whose methods hold the real contents (``list``,
    ``dict``, ``collections.OrderedDict``...): what a subclass's overrides reach through ``super()``."""
    return next(klass for klass in cls.__mro__ if klass in _CONTAINER_BASES)


_CONTAINER_BASES = (list, dict, collections.OrderedDict, collections.defaultdict)


class BuiltinContents(_Chained):
    """The items of a list or dict subclass as its builtin base holds them, read without running any
    method the subclass overrides (``__getitem__``, ``__iter__``, ``__len__``, ``keys``): a plain
    ``list`` (``list.copy(base)``) or ``dict`` (the base class's own ``items``), a shallow copy."""

    __slots__ = ()
    fetch_cost = 3

    def __init__(self, base: Any) -> None:
        _set_chained(self, _check_base("BuiltinContents", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value: Any) -> Any:
        if isinstance(base_value, list):
            return list.copy(base_value)
        if isinstance(base_value, dict):
            return dict(builtin_base(type(base_value)).items(base_value))
        raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a list or dict")

    def __str__(self) -> str:
        return f"<the builtin contents of {self._base}>"


class DictValueAt(_Chained):
    """The value of a dict (or a mappingproxy of one) at position ``index`` in its order: how a guard reaches
    ``d[key]`` for a key no source can spell (a class, a function). Read through ``dict.values``, without
    running a subclass's methods; paired with a ``DictKeys`` guard on the base, the position is the key's."""

    __slots__ = ("index",)
    fetch_cost = 3

    def __init__(self, base: Any, index: int) -> None:
        if type(index) is not int or index < 0:
            raise TypeError(f"DictValueAt index must be an int >= 0, got {index!r}")
        _set_chained(self, _check_base("DictValueAt", base), "index", index)

    def _key(self) -> tuple:
        return (self._base, self.index)

    def _args(self) -> tuple:
        return (self._base, self.index)

    def read_from(self, base_value: Any) -> Any:
        if isinstance(base_value, dict):
            values = dict.values(base_value)
        elif type(base_value) is types.MappingProxyType:
            values = base_value.values()
        else:
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a dict")
        for value in itertools.islice(values, self.index, None):
            return value
        raise IndexError(f"{self._base} has no value at position {self.index}")

    def __str__(self) -> str:
        return f"list({self._base}.values())[{self.index}]"
