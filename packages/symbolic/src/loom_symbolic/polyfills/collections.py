"""``collections``' C parts, in Python: ``defaultdict``'s and ``OrderedDict``'s C methods, ``Counter``'s C
helper, and ``deque`` whole.

``defaultdict``, ``OrderedDict`` and ``Counter`` instances are dicts to the translator (their items
are modelled like a dict's); only the methods their C classes add are replaced here, and they are
written with ``dict``'s own methods called unbound, as the C code calls the dict layer directly (a
subclass overriding ``__setitem__`` does not see ``move_to_end`` call it). ``deque`` is not a dict or
a list, so a Python class stands in for it while tracing; one that outlives the frame is rebuilt as a
real ``collections.deque`` by :func:`deque_to_real`.
"""

from __future__ import annotations

import collections as _collections
import operator as _operator
from typing import Any

from .registry import method, polyfill, rebuild

_NO_FACTORY = object()


# -- dict's class method, which subclasses inherit ---------------------------------------------------
@method(dict, "fromkeys", classmethod=True)
def dict_fromkeys(cls: type, iterable: Any, value: Any = None, /) -> Any:
    """``cls.fromkeys(iterable, value=None)`` for a dict subclass: ``cls()``, then each key stored
    through the subclass's ``__setitem__``, as C does for anything but an exact dict."""
    result = cls()
    for key in iterable:
        result[key] = value
    return result


# -- defaultdict -------------------------------------------------------------------------------------
@method(_collections.defaultdict, "__init__", slots=("default_factory",))
def defaultdict_init(self: Any, default_factory: Any = None, /, *args: Any, **kwargs: Any) -> None:
    """``defaultdict(default_factory=None, /, *args, **kwargs)``."""
    if default_factory is not None and not callable(default_factory):
        raise TypeError("first argument must be callable or None")
    self.default_factory = default_factory
    dict.update(self, *args, **kwargs)


@method(_collections.defaultdict, "__missing__")
def defaultdict_missing(self: Any, key: Any, /) -> Any:
    """``d[key]`` of a missing key: ``default_factory()``, stored under ``key`` (``KeyError`` without one)."""
    factory = self.default_factory
    if factory is None:
        raise KeyError(key)
    value = factory()
    self[key] = value
    return value


@method(_collections.defaultdict, "copy")
def defaultdict_copy(self: Any, /) -> Any:
    """``d.copy()``: a shallow copy of the same type and factory."""
    return type(self)(self.default_factory, self)


method(_collections.defaultdict, "__copy__")(defaultdict_copy)


# -- OrderedDict -------------------------------------------------------------------------------------
@method(_collections.OrderedDict, "fromkeys", classmethod=True)
def ordereddict_fromkeys(cls: type, iterable: Any, value: Any = None, /) -> Any:
    """``OrderedDict.fromkeys(iterable, value=None)``: the C class defines its own, which makes ``cls()``
    and stores each key through ``__setitem__``, as dict's does for a subclass."""
    return dict_fromkeys(cls, iterable, value)


@method(_collections.OrderedDict, "move_to_end")
def ordereddict_move_to_end(self: Any, key: Any, last: bool = True) -> None:
    """``od.move_to_end(key, last=True)``: ``KeyError`` if ``key`` is missing."""
    value = dict.pop(self, key)
    if last:
        dict.__setitem__(self, key, value)
        return
    rest = list(dict.items(self))
    dict.clear(self)
    dict.__setitem__(self, key, value)
    dict.update(self, rest)


@method(_collections.OrderedDict, "copy")
def ordereddict_copy(self: Any) -> Any:
    """``od.copy()``: a new ``type(od)``, filled in order (through a subclass's item methods, as C does)."""
    result = type(self)()
    for key in list(dict.keys(self)):
        result[key] = self[key]
    return result


@method(_collections.OrderedDict, "popitem")
def ordereddict_popitem(self: Any, last: bool = True) -> tuple:
    """``od.popitem(last=True)``: the last (or first) item, removed."""
    keys = list(dict.keys(self))
    if not keys:
        raise KeyError("dictionary is empty")
    key = keys[-1] if last else keys[0]
    return key, dict.pop(self, key)


# -- Counter's helper ---------------------------------------------------------------------------------
@polyfill(_collections._count_elements)
def count_elements(mapping: Any, iterable: Any, /) -> None:
    """``collections._count_elements``: what ``Counter.update`` counts an iterable with."""
    for element in iterable:
        mapping[element] = mapping.get(element, 0) + 1


# -- deque ---------------------------------------------------------------------------------------------
@polyfill(_collections.deque)
class deque:  # named as the class it stands for, which messages show
    """``collections.deque(iterable=(), maxlen=None)``: items in a list, the oldest dropped past
    ``maxlen``; mutating it while iterating raises ``RuntimeError`` as the real one does."""

    def __init__(self, iterable: Any = (), maxlen: Any = None) -> None:
        if maxlen is not None:
            if not isinstance(maxlen, int):
                raise TypeError("an integer is required")
            if maxlen < 0:
                raise ValueError("maxlen must be non-negative")
        self._maxlen = maxlen
        self._items: list = []
        self._state = 0  # bumped by every change in length, which invalidates running iterators
        self.extend(iterable)

    @property
    def maxlen(self) -> Any:
        """The bound given at creation, or None."""
        return self._maxlen

    def _trim_left(self) -> None:
        if self._maxlen is not None and len(self._items) > self._maxlen:
            del self._items[0]

    def _trim_right(self) -> None:
        if self._maxlen is not None and len(self._items) > self._maxlen:
            self._items.pop()

    def append(self, item: Any, /) -> None:
        """Add ``item`` on the right (dropping the leftmost past ``maxlen``)."""
        self._state += 1
        self._items.append(item)
        self._trim_left()

    def appendleft(self, item: Any, /) -> None:
        """Add ``item`` on the left (dropping the rightmost past ``maxlen``)."""
        self._state += 1
        self._items.insert(0, item)
        self._trim_right()

    def extend(self, iterable: Any, /) -> None:
        """``append`` each item of ``iterable``."""
        items = list(iterable) if iterable is self else iterable
        for item in items:
            self.append(item)

    def extendleft(self, iterable: Any, /) -> None:
        """``appendleft`` each item of ``iterable`` (so they end up reversed)."""
        items = list(iterable) if iterable is self else iterable
        for item in items:
            self.appendleft(item)

    def pop(self) -> Any:
        """Remove and return the rightmost item."""
        if not self._items:
            raise IndexError("pop from an empty deque")
        self._state += 1
        return self._items.pop()

    def popleft(self) -> Any:
        """Remove and return the leftmost item."""
        if not self._items:
            raise IndexError("pop from an empty deque")
        self._state += 1
        return self._items.pop(0)

    def rotate(self, n: int = 1, /) -> None:
        """Rotate ``n`` steps to the right (to the left if negative)."""
        size = len(self._items)
        if size > 1:
            n %= size
            if n:
                self._items[:] = self._items[-n:] + self._items[:-n]

    def clear(self) -> None:
        """Remove every item."""
        self._state += 1
        self._items.clear()

    def copy(self) -> Any:
        """A shallow copy with the same ``maxlen``."""
        return deque(self._items, self._maxlen)

    __copy__ = copy

    def count(self, value: Any, /) -> int:
        """How many items equal ``value``."""
        return self._items.count(value)

    def index(self, value: Any, *bounds: Any) -> int:
        """The position of the first item equal to ``value``."""
        try:
            return self._items.index(value, *bounds)
        except ValueError:
            raise ValueError(f"{value!r} is not in deque") from None

    def insert(self, index: int, value: Any, /) -> None:
        """Insert ``value`` before ``index``; ``IndexError`` when that would exceed ``maxlen``."""
        if self._maxlen is not None and len(self._items) >= self._maxlen:
            raise IndexError("deque already at its maximum size")
        self._state += 1
        self._items.insert(index, value)

    def remove(self, value: Any, /) -> None:
        """Remove the first item equal to ``value``."""
        for i, item in enumerate(self._items):
            if item == value:
                self._state += 1
                del self._items[i]
                return
        raise ValueError(f"{value!r} is not in deque")

    def reverse(self) -> None:
        """Reverse the items in place."""
        self._items.reverse()

    def __len__(self) -> int:
        return len(self._items)

    def __bool__(self) -> bool:
        return bool(self._items)

    def __contains__(self, value: Any) -> bool:
        return value in self._items

    def __getitem__(self, index: int) -> Any:
        if not isinstance(index, int):
            raise TypeError(f"sequence index must be integer, not '{type(index).__name__}'")
        try:
            return self._items[index]
        except IndexError:
            raise IndexError("deque index out of range") from None

    def __setitem__(self, index: int, value: Any) -> None:
        if not isinstance(index, int):
            raise TypeError(f"sequence index must be integer, not '{type(index).__name__}'")
        try:
            self._items[index] = value
        except IndexError:
            raise IndexError("deque index out of range") from None

    def __delitem__(self, index: int) -> None:
        try:
            del self._items[index]
        except IndexError:
            raise IndexError("deque index out of range") from None
        self._state += 1

    def __iter__(self) -> Any:
        state = self._state
        for item in self._items:
            if self._state != state:
                raise RuntimeError("deque mutated during iteration")
            yield item
        if self._state != state:
            raise RuntimeError("deque mutated during iteration")

    def __repr__(self) -> str:
        items = repr(self._items)
        return f"deque({items})" if self._maxlen is None else f"deque({items}, maxlen={self._maxlen})"

    __hash__ = None  # type: ignore[assignment]

    def _compare(self, other: Any, op: Any) -> Any:
        if not isinstance(other, (deque, _collections.deque)):
            return NotImplemented
        return op(list(self), list(other))

    def __eq__(self, other: Any) -> Any:
        return self._compare(other, _operator.eq)

    def __ne__(self, other: Any) -> Any:
        return self._compare(other, _operator.ne)

    def __lt__(self, other: Any) -> Any:
        return self._compare(other, _operator.lt)

    def __le__(self, other: Any) -> Any:
        return self._compare(other, _operator.le)

    def __gt__(self, other: Any) -> Any:
        return self._compare(other, _operator.gt)

    def __ge__(self, other: Any) -> Any:
        return self._compare(other, _operator.ge)

    def __reversed__(self) -> Any:
        state = self._state
        for i in range(len(self._items) - 1, -1, -1):
            if self._state != state:
                raise RuntimeError("deque mutated during iteration")
            yield self._items[i]


@rebuild(_collections.deque)
def deque_to_real(stand_in: deque) -> _collections.deque:
    """The real deque a :class:`deque` made while tracing stands for (run after the graph)."""
    return _collections.deque(stand_in._items, stand_in._maxlen)
