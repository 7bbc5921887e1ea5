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
from types import MemberDescriptorType
from typing import Any

from .registry import method, no_rebuild, polyfill, real_class_of, rebuild

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


_NOTHING = object()


def ordereddict_update(self: Any, /, *args: Any, **kwargs: Any) -> None:
    """OrderedDict's C ``update`` (also its ``__init__`` and ``|=``): every item stored through the object's
    ``__setitem__`` (a subclass's Python one runs, as dict's own update never does it), taken from a plain dict's
    pairs, a mapping's ``keys()`` and ``[key]``, an object's ``items()``, or pairs; then the keyword arguments."""
    if len(args) > 1:
        raise TypeError(f"update() takes at most 1 positional argument ({len(args)} given)")
    if args:
        other = args[0]
        if type(other) is dict:
            _add_pairs(self, list(dict.items(other)))
        elif hasattr(other, "keys"):
            for key in other.keys():
                self[key] = other[key]
        elif hasattr(other, "items"):
            _add_pairs(self, other.items())
        else:
            _add_pairs(self, other)
    if kwargs:
        _add_pairs(self, list(kwargs.items()))


def _add_pairs(self: Any, pairs: Any) -> None:
    for pair in pairs:
        parts = iter(pair)
        key = next(parts, _NOTHING)
        if key is _NOTHING:
            raise ValueError("need more than 0 values to unpack")
        value = next(parts, _NOTHING)
        if value is _NOTHING:
            raise ValueError("need more than 1 value to unpack")
        if next(parts, _NOTHING) is not _NOTHING:
            raise ValueError("too many values to unpack (expected 2)")
        self[key] = value


def ordereddict_setdefault(self: Any, key: Any, default: Any = None) -> Any:
    """An OrderedDict subclass's C ``setdefault``: ``key in self``, then ``self[key]`` or ``self[key] = default``,
    through the subclass's own methods."""
    if key in self:
        return self[key]
    self[key] = default
    return default


def ordereddict_or(left: Any, right: Any) -> Any:
    """``left | right`` where OrderedDict's C ``__or__`` answers (one side is an OrderedDict): a new object of
    the OrderedDict side's class made from ``left`` (its ``__init__`` runs), then ``right``'s items stored one by
    one through that object's ``__setitem__``, read as C reads them (a plain dict's pairs, else by key)."""
    new = type(left if isinstance(left, _collections.OrderedDict) else right)(left)
    ordereddict_update(new, right)
    return new


# -- Counter's helper ---------------------------------------------------------------------------------
@polyfill(_collections._count_elements)
def count_elements(mapping: Any, iterable: Any, /) -> None:
    """``collections._count_elements``: what ``Counter.update`` counts an iterable with."""
    for element in iterable:
        mapping[element] = mapping.get(element, 0) + 1


# -- deque ---------------------------------------------------------------------------------------------
_HEAPTYPE, _IMMUTABLETYPE = 1 << 9, 1 << 8


def _type_name(cls: type) -> str:
    """CPython's ``tp_name`` of ``cls``, as its C messages show it: a class statement's is its name, a C
    type's is dotted with its module (``collections.OrderedDict``)."""
    if cls.__module__ == "builtins":
        return cls.__name__
    flags = cls.__flags__  # not read in the trace yet: another class's name is a graph break, never wrong
    if flags & _HEAPTYPE and not flags & _IMMUTABLETYPE:
        return cls.__name__
    return f"{cls.__module__}.{cls.__qualname__}"


def _ssize_arg(value: Any) -> int:
    """A ``Py_ssize_t`` argument as a C method reads it: through ``__index__``."""
    return _operator.index(value)


def _slice_bound(value: Any) -> int:
    """``index``'s start and stop, read as slice bounds are."""
    if not hasattr(type(value), "__index__"):
        raise TypeError("slice indices must be integers or have an __index__ method")
    return _operator.index(value)


def _repeat_count(value: Any) -> int:
    """The count of ``deque * n``: an int, or what has ``__index__``."""
    if not hasattr(type(value), "__index__"):
        raise TypeError(f"can't multiply sequence by non-int of type '{_type_name(type(value))}'")
    return _operator.index(value)


def _matches(item: Any, value: Any) -> bool:
    """``PyObject_RichCompareBool(item, value, Py_EQ)``: identity first, then ``==``."""
    return item is value or bool(item == value)


@polyfill(_collections.deque)
class deque:  # named as the class it stands for, which messages show
    """``collections.deque(iterable=(), maxlen=None)``: items in a list, the oldest dropped past
    ``maxlen``. ``_state`` counts the changes of length (and rotations), as the C deque's ``state`` does:
    iterators and searches that see it move raise ``RuntimeError``."""

    _items: Any = ()  # what deque.__new__ leaves: an empty deque (``__init__`` may run again)
    _state = 0

    def __init__(self, iterable: Any = (), maxlen: Any = None) -> None:
        if maxlen is not None:
            if not isinstance(maxlen, int):
                raise TypeError("an integer is required")
            if maxlen < 0:
                raise ValueError("maxlen must be non-negative")
        self._maxlen = maxlen
        if self._items:
            self._state += 1
        self._items = []
        deque.extend(self, iterable)  # the C deque's own, whatever a subclass overrides

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
        """``append`` each item of ``iterable`` (all of it is consumed when ``maxlen`` is 0)."""
        items = list(iterable) if iterable is self else iterable
        for item in items:
            deque.append(self, item)

    def extendleft(self, iterable: Any, /) -> None:
        """``appendleft`` each item of ``iterable`` (so they end up reversed)."""
        items = list(iterable) if iterable is self else iterable
        for item in items:
            deque.appendleft(self, item)

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

    def rotate(self, n: Any = 1, /) -> None:
        """Rotate ``n`` steps to the right (to the left if negative)."""
        n = _ssize_arg(n)  # checked before the length, as the C argument parser does
        size = len(self._items)
        if size > 1:
            self._state += 1
            n %= size
            if n:
                self._items[:] = self._items[-n:] + self._items[:-n]

    def clear(self) -> None:
        """Remove every item."""
        if self._items:
            self._state += 1
        self._items.clear()

    def copy(self) -> Any:
        """A shallow copy with the same ``maxlen``; a subclass's is ``type(d)(d[, maxlen])``, as C's is."""
        cls = type(self)
        if cls is deque or cls is _collections.deque:
            return deque(self._items, self._maxlen)
        return cls(self) if self._maxlen is None else cls(self, self._maxlen)

    __copy__ = copy

    def count(self, value: Any, /) -> int:
        """How many items equal ``value``; ``RuntimeError`` if a comparison changed the deque."""
        state, found = self._state, 0
        for i in range(len(self._items)):
            found += _matches(self._items[i], value)
            if self._state != state:
                raise RuntimeError("deque mutated during iteration")
        return found

    def index(self, value: Any, start: Any = 0, stop: Any = None, /) -> int:
        """The position of the first item equal to ``value`` in ``[start:stop]``."""
        size = len(self._items)
        start = _slice_bound(start)
        stop = size if stop is None else _slice_bound(stop)
        start = max(start + size, 0) if start < 0 else start
        stop = min(max(stop + size, 0) if stop < 0 else stop, size)
        state = self._state
        for i in range(min(start, stop), stop):
            if _matches(self._items[i], value):
                return i
            if self._state != state:
                raise RuntimeError("deque mutated during iteration")
        raise ValueError(f"{value!r} is not in deque")

    def insert(self, index: Any, value: Any, /) -> None:
        """Insert ``value`` before ``index``; ``IndexError`` when that would exceed ``maxlen``."""
        index = _ssize_arg(index)
        if self._maxlen is not None and len(self._items) >= self._maxlen:
            raise IndexError("deque already at its maximum size")
        self._state += 1
        self._items.insert(index, value)

    def remove(self, value: Any, /) -> None:
        """Remove the first item equal to ``value``; ``IndexError`` if a comparison changed the deque."""
        state = self._state
        for i in range(len(self._items)):
            found = _matches(self._items[i], value)
            if self._state != state:
                raise IndexError("deque mutated during iteration")
            if found:
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
        state = self._state
        for i in range(len(self._items)):
            if _matches(self._items[i], value):
                return True
            if self._state != state:
                raise RuntimeError("deque mutated during iteration")
        return False

    def _position(self, index: Any) -> int:
        """``index`` as the C deque reads one: an int (or ``__index__``) within its length."""
        if not isinstance(index, int):
            if not hasattr(type(index), "__index__"):
                raise TypeError(f"sequence index must be integer, not '{type(index).__name__}'")
            index = _operator.index(index)
        if index < -len(self._items) or index >= len(self._items):
            raise IndexError("deque index out of range")
        return index

    def __getitem__(self, index: Any) -> Any:
        return self._items[self._position(index)]

    def __setitem__(self, index: Any, value: Any) -> None:
        self._items[self._position(index)] = value

    def __delitem__(self, index: Any) -> None:
        del self._items[self._position(index)]
        self._state += 1

    def __iter__(self) -> Any:
        return _deque_iterator(self)

    def __reversed__(self) -> Any:
        return _deque_reverse_iterator(self)

    def __repr__(self) -> str:
        # a deque holding itself shows "[...]" there, as the C repr's recursion guard makes it
        items = "[" + ", ".join("[...]" if item is self else repr(item) for item in self._items) + "]"
        name = type(self).__name__  # a subclass's own name, as C's repr shows it
        return f"{name}({items})" if self._maxlen is None else f"{name}({items}, maxlen={self._maxlen})"

    __hash__ = None  # type: ignore[assignment]

    def __add__(self, other: Any) -> Any:
        if not isinstance(other, _DEQUES):
            raise TypeError(f'can only concatenate deque (not "{_type_name(type(other))}") to deque')
        joined = deque.copy(self)
        deque.extend(joined, other)
        return joined

    def __iadd__(self, other: Any) -> Any:
        deque.extend(self, other)
        return self

    def __mul__(self, n: Any) -> Any:
        return deque.__imul__(deque.copy(self), n)

    __rmul__ = __mul__

    def __imul__(self, n: Any) -> Any:
        n = _repeat_count(n)
        size = len(self._items)
        if size == 0 or n == 1:
            return self
        if n <= 0:
            deque.clear(self)
            return self
        if self._maxlen is not None and n * size > self._maxlen:
            n = (self._maxlen + size - 1) // size  # the repeats that fill the bound: the same last items
        seq = list(self._items)
        for _ in range(n - 1):
            deque.extend(self, seq)
        return self

    def _compare(self, other: Any, op: Any) -> Any:
        if not isinstance(other, _DEQUES):
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


#: a deque as the trace sees one (the stand-in shows the real class), or natively in tests
_DEQUES = (deque, _collections.deque)


@polyfill(type(iter(_collections.deque())))
class _deque_iterator:
    """``iter(deque)``: the items left, counted when it was made; ``RuntimeError`` once the deque's length
    changed (checked first, so an iterator that ran out still raises then)."""

    def __init__(self, d: Any, index: Any = 0, /) -> None:
        if not isinstance(d, _DEQUES):
            raise TypeError(f"argument 1 must be collections.deque, not {type(d).__name__}")
        self._deque, self._state, self._next, self._counter = d, d._state, 0, len(d)
        for _ in range(min(_ssize_arg(index), self._counter)):  # dequeiter_new: advanced as asked
            next(self)

    def __iter__(self) -> Any:
        return self

    def __next__(self) -> Any:
        if self._deque._state != self._state:
            self._counter = 0
            raise RuntimeError("deque mutated during iteration")
        if self._counter == 0:
            raise StopIteration
        self._counter -= 1
        self._next += 1
        return self._deque._items[self._next - 1]

    def __length_hint__(self) -> int:
        return self._counter


@polyfill(type(reversed(_collections.deque())))
class _deque_reverse_iterator(_deque_iterator):
    """``reversed(deque)``: as :class:`_deque_iterator` from the right, but one that ran out stays
    exhausted (the count is checked before the state)."""

    def __next__(self) -> Any:
        if self._counter == 0:
            raise StopIteration
        if self._deque._state != self._state:
            self._counter = 0
            raise RuntimeError("deque mutated during iteration")
        self._counter -= 1
        self._next += 1
        return self._deque._items[len(self._deque._items) - self._next]


@rebuild(_collections.deque)
def deque_to_real(stand_in: deque) -> _collections.deque:
    """The real deque a :class:`deque` made while tracing stands for (run after the graph); for a subclass's
    shadow (:mod:`.subclasses`) an object of the real subclass, its instance attributes given back."""
    real = real_class_of(type(stand_in))[0]
    if real is _collections.deque:
        return _collections.deque(stand_in._items, stand_in._maxlen)
    made = _collections.deque.__new__(real)
    _collections.deque.__init__(made, stand_in._items, stand_in._maxlen)
    for name, value in vars(stand_in).items():
        if name in _STATE:
            continue
        slot = next((vars(k)[name] for k in real.__mro__ if name in vars(k)), None)
        if isinstance(slot, MemberDescriptorType):
            slot.__set__(made, value)  # a __slots__ entry: no __setattr__ of the class runs
        else:
            vars(made)[name] = value
    return made


#: the attributes the stand-in keeps its state in
_STATE = frozenset(("_items", "_maxlen", "_state"))


# an iterator made while tracing stays there: the real one could not see the trace's changes to its deque
no_rebuild(type(iter(_collections.deque())))
no_rebuild(type(reversed(_collections.deque())))
