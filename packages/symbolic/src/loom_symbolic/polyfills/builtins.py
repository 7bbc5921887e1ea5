"""Builtins, in Python, for the calls the translator's own model of them does not cover
(``min(values, key=...)``: ``min`` of constants is folded without tracing anything)."""

from __future__ import annotations

import builtins as _builtins
from typing import Any

from .registry import polyfill

_NO_DEFAULT = object()


def _message_of(call: Any) -> str:
    try:
        call()
    except ValueError as exc:
        return str(exc)
    raise AssertionError("expected a ValueError")


#: The running CPython's own wording ("min() arg is an empty sequence" on 3.11, "min() iterable
#: argument is empty" on 3.12).
_EMPTY = {"min": _message_of(lambda: _builtins.min([])), "max": _message_of(lambda: _builtins.max([]))}


def _extreme(name: str, args: tuple, key: Any, default: Any, better: Any) -> Any:
    if not args:
        raise TypeError(f"{name} expected at least 1 argument, got 0")
    if len(args) > 1 and default is not _NO_DEFAULT:
        raise TypeError(f"Cannot specify a default for {name}() with multiple positional arguments")
    it = iter(args[0] if len(args) == 1 else args)
    try:
        best = next(it)
    except StopIteration:
        if default is _NO_DEFAULT:
            raise ValueError(_EMPTY[name]) from None
        return default
    best_key = best if key is None else key(best)
    for item in it:
        item_key = item if key is None else key(item)
        if better(item_key, best_key):  # strict: the first of equal items wins, as in C
            best, best_key = item, item_key
    return best


@polyfill(_builtins.min, fallback=True)
def min(*args: Any, key: Any = None, default: Any = _NO_DEFAULT) -> Any:
    """``min(iterable, *, key=None, default=...)`` / ``min(a, b, ..., key=None)``."""
    return _extreme("min", args, key, default, lambda a, b: a < b)


@polyfill(_builtins.max, fallback=True)
def max(*args: Any, key: Any = None, default: Any = _NO_DEFAULT) -> Any:
    """``max(iterable, *, key=None, default=...)`` / ``max(a, b, ..., key=None)``."""
    return _extreme("max", args, key, default, lambda a, b: a > b)


def _not_callable_message() -> str:
    try:
        _builtins.iter(None, None)
    except TypeError as exc:
        return str(exc)
    raise AssertionError("expected a TypeError")


#: The running CPython's wording ("iter(v, w): v must be callable" on 3.11, "iter(object, sentinel):
#: object must be callable" on 3.12).
_NOT_CALLABLE = _not_callable_message()


def _call_until(function: Any, sentinel: Any) -> Any:
    while True:
        try:
            value = function()
        except StopIteration:  # ends the iteration, as in C (a generator would turn it into RuntimeError)
            return
        # C compares sentinel == value (PyObject_RichCompareBool): the sentinel's __eq__ is asked first
        if sentinel is value or sentinel == value:
            return
        yield value


@polyfill(_builtins.iter, fallback=True)
def iter_with_sentinel(*args: Any) -> Any:
    """``iter(callable, sentinel)`` (the one-argument form is the translator's own)."""
    if len(args) != 2:
        raise TypeError(f"iter expected at most 2 arguments, got {len(args)}")
    function, sentinel = args
    if not callable(function):
        raise TypeError(_NOT_CALLABLE)
    return _call_until(function, sentinel)


@polyfill(dict, "fromkeys")
def dict_fromkeys(iterable: Any, value: Any = None, /) -> dict:
    """``dict.fromkeys(iterable, value=None)``."""
    result = {}
    for key in iterable:
        result[key] = value
    return result
