"""``math``'s functions that reduce an iterable, in Python: traced where the translator's own model of
``math`` (folding constants, symbolic ints) does not apply, such as ``math.prod([n, 2])`` with ``n`` a
symbolic size, or ``math.fsum`` of a generator."""

from __future__ import annotations

import math as _math
from typing import Any

from .registry import polyfill


@polyfill(_math.prod, fallback=True)
def prod(iterable: Any, /, *, start: Any = 1) -> Any:
    """``math.prod(iterable, *, start=1)``: ``start`` times each item, left to right, as C's loop."""
    result = start
    for item in iterable:
        result = result * item
    return result


@polyfill(_math.fsum, fallback=True)
def fsum(iterable: Any, /) -> Any:
    """``math.fsum(iterable)``: each item taken and made a float as C's ``PyFloat_AsDouble`` makes it (the same
    error at the same item, before the next is taken), then C's exact sum of those floats."""
    return _math.fsum([_as_double(item) for item in iterable])


def _as_double(item: Any) -> float:
    """``item`` as C reads a double: a float's own value, else ``__float__``, else ``__index__`` (``float()``
    would also parse a string, which C refuses)."""
    cls = type(item)
    if cls is float:
        return item
    if isinstance(item, float):
        return float.__float__(item)  # a float subclass's value: its own __float__ is not asked
    if not (hasattr(cls, "__float__") or hasattr(cls, "__index__")):
        raise TypeError(f"must be real number, not {cls.__name__}")
    return float(item)
