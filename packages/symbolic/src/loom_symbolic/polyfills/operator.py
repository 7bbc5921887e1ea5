"""``operator``'s callable-making classes (``itemgetter``, ``attrgetter``, ``methodcaller``) and
``length_hint``, in Python.

Each returns a plain function that does what the real object's ``__call__`` does; inside a trace that
is all the program can observe of it (its type is only seen if it escapes, which breaks the graph).
"""

from __future__ import annotations

import operator as _operator
from typing import Any

from .registry import polyfill


@polyfill(_operator.itemgetter)
def itemgetter(item: Any, /, *items: Any) -> Any:
    """``operator.itemgetter(i)`` / ``itemgetter(i, j, ...)``."""
    if not items:

        def get_one(obj: Any) -> Any:
            return obj[item]

        return get_one
    keys = (item, *items)

    def get_many(obj: Any) -> Any:
        return tuple(obj[k] for k in keys)

    return get_many


def _resolve(obj: Any, dotted: str) -> Any:
    for name in dotted.split("."):
        obj = getattr(obj, name)
    return obj


@polyfill(_operator.attrgetter)
def attrgetter(attr: str, /, *attrs: str) -> Any:
    """``operator.attrgetter("a")`` / ``attrgetter("a.b", "c")``."""
    names = (attr, *attrs)
    for name in names:
        if not isinstance(name, str):
            raise TypeError("attribute name must be a string")
    if not attrs:

        def get_one(obj: Any) -> Any:
            return _resolve(obj, attr)

        return get_one

    def get_many(obj: Any) -> Any:
        return tuple(_resolve(obj, name) for name in names)

    return get_many


@polyfill(_operator.methodcaller)
def methodcaller(name: str, /, *args: Any, **kwargs: Any) -> Any:
    """``operator.methodcaller("name", *args, **kwargs)``."""
    if not isinstance(name, str):
        raise TypeError("method name must be a string")

    def call(obj: Any) -> Any:
        return getattr(obj, name)(*args, **kwargs)

    return call


@polyfill(_operator.length_hint)
def length_hint(obj: Any, default: Any = 0, /) -> int:
    """``operator.length_hint(obj, default=0)``: ``len(obj)`` where the type has one, else its
    ``__length_hint__()``, else ``default`` (CPython's ``PyObject_LengthHint``)."""
    if not isinstance(default, int):
        raise TypeError(f"'{type(default).__name__}' object cannot be interpreted as an integer")
    if hasattr(type(obj), "__len__"):
        try:
            return len(obj)
        except TypeError:  # a __len__ that refuses: CPython asks for the hint instead
            pass
    hint = getattr(type(obj), "__length_hint__", None)
    if hint is None:
        return default
    value = hint(obj)
    if value is NotImplemented:
        return default
    if not isinstance(value, int):
        raise TypeError(f"__length_hint__ must be an integer, not {type(value).__name__}")
    if value < 0:
        raise ValueError("__length_hint__() should return >= 0")
    return value
