"""``functools``' C functions, in Python."""

from __future__ import annotations

import functools as _functools
from typing import Any

from .registry import polyfill, rebuild

_NO_INITIAL = object()


@polyfill(_functools.reduce)
def reduce(function: Any, iterable: Any, initial: Any = _NO_INITIAL, /) -> Any:
    """``functools.reduce``: fold ``iterable`` from the left with ``function``."""
    try:
        it = iter(iterable)
    except TypeError:
        it = None
    if it is None:  # raised outside the handler: CPython's error has no __context__
        raise TypeError("reduce() arg 2 must support iteration")
    if initial is _NO_INITIAL:
        try:
            value = next(it)
        except StopIteration:
            raise TypeError("reduce() of empty iterable with no initial value") from None
    else:
        value = initial
    for element in it:
        value = function(value, element)
    return value


_KWARGS_MARK = object()  # separates positional from keyword arguments in a cache key, as functools' does


@polyfill(_functools._lru_cache_wrapper)
class _lru_cache_wrapper:  # named as the class it stands for, which messages show
    """``functools.lru_cache``'s C wrapper, for a cached function made while tracing (``@lru_cache``
    applied inside the compiled function): results kept in a dict under the key the C one builds (so
    hits, misses and what the function runs are eager's), the least recently used dropped past
    ``maxsize``."""

    def __init__(self, user_function: Any, maxsize: Any, typed: Any, cache_info_type: Any) -> None:
        if not callable(user_function):
            raise TypeError("the first argument must be callable")
        self.__wrapped__ = user_function
        self._maxsize = maxsize
        self._typed = typed
        self._cache_info_type = cache_info_type
        self._cache: dict = {}
        self._hits = 0
        self._misses = 0

    def _key(self, args: tuple, kwargs: dict) -> Any:
        if not self._typed and not kwargs and len(args) == 1 and type(args[0]) in (int, str):
            return args[0]  # the C key of one int or str argument is the argument itself
        key = args
        if kwargs:
            key += (_KWARGS_MARK,)
            for item in kwargs.items():
                key += item
        if self._typed:
            key += tuple(type(v) for v in args)
            if kwargs:
                key += tuple(type(v) for v in kwargs.values())
        return key

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self._maxsize == 0:
            self._misses += 1
            return self.__wrapped__(*args, **kwargs)
        key = self._key(args, kwargs)
        if key in self._cache:
            self._hits += 1
            result = self._cache.pop(key)  # most recently used: last
            self._cache[key] = result
            return result
        self._misses += 1
        result = self.__wrapped__(*args, **kwargs)
        if key not in self._cache:
            if self._maxsize is not None and len(self._cache) >= self._maxsize:
                del self._cache[next(iter(self._cache))]
            self._cache[key] = result
        return result

    def cache_info(self) -> Any:
        """``(hits, misses, maxsize, currsize)``."""
        return self._cache_info_type(self._hits, self._misses, self._maxsize, len(self._cache))

    def cache_clear(self) -> None:
        """Forget every result and the statistics."""
        self._cache.clear()
        self._hits = 0
        self._misses = 0

    def cache_parameters(self) -> dict:
        """``{"maxsize": ..., "typed": ...}``."""
        return {"maxsize": self._maxsize, "typed": self._typed}


@rebuild(_functools._lru_cache_wrapper)
def lru_cache_wrapper_to_real(stand_in: _lru_cache_wrapper) -> Any:
    """A real cached function for one made while tracing that outlives the frame (its cache starts
    empty: a C cache cannot be filled without calling the function)."""
    maxsize, typed = stand_in._maxsize, stand_in._typed
    real = _functools._lru_cache_wrapper(stand_in.__wrapped__, maxsize, typed, stand_in._cache_info_type)
    real.cache_parameters = lambda: {"maxsize": maxsize, "typed": typed}  # as lru_cache sets it
    return _functools.update_wrapper(real, stand_in.__wrapped__)


@polyfill(_functools.lru_cache)
def lru_cache(maxsize: Any = 128, typed: bool = False) -> Any:
    """``functools.lru_cache(maxsize=128, typed=False)`` (or ``@lru_cache`` bare): a cached function
    whose wrapper is :class:`_lru_cache_wrapper`. Its name and docstring are copied (``update_wrapper``)
    when it is rebuilt as a real one, not while tracing."""
    if isinstance(maxsize, int):
        maxsize = max(maxsize, 0)
    elif callable(maxsize) and isinstance(typed, bool):
        return _lru_cache_wrapper(maxsize, 128, typed, _functools._CacheInfo)
    elif maxsize is not None:
        raise TypeError("Expected first argument to be an integer, a callable, or None")

    def decorating_function(user_function: Any) -> Any:
        return _lru_cache_wrapper(user_function, maxsize, typed, _functools._CacheInfo)

    return decorating_function


class _KeyWrapper:
    """What ``cmp_to_key(cmp)(obj)`` returns: compared through ``cmp(self.obj, other.obj)`` against 0."""

    __hash__ = None  # type: ignore[assignment]

    def __init__(self, cmp: Any, obj: Any) -> None:
        self.cmp = cmp
        self.obj = obj

    def _against(self, other: Any) -> Any:
        if not isinstance(other, _KeyWrapper):
            raise TypeError("other argument must be K instance")
        return self.cmp(self.obj, other.obj)

    def __lt__(self, other: Any) -> bool:
        return self._against(other) < 0

    def __le__(self, other: Any) -> bool:
        return self._against(other) <= 0

    def __gt__(self, other: Any) -> bool:
        return self._against(other) > 0

    def __ge__(self, other: Any) -> bool:
        return self._against(other) >= 0

    def __eq__(self, other: Any) -> bool:
        return self._against(other) == 0


@polyfill(_functools.cmp_to_key)
def cmp_to_key(mycmp: Any) -> Any:
    """``functools.cmp_to_key(mycmp)``: a key function whose keys compare by ``mycmp``."""

    def key(obj: Any) -> _KeyWrapper:
        return _KeyWrapper(mycmp, obj)

    return key
