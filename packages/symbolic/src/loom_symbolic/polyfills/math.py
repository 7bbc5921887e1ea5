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
    error at the same item, before the next is taken), then C's exact sum of those floats. C raises an
    intermediate overflow at the item that causes it: once the magnitudes could reach one, each prefix is
    summed, so the error comes with the same item taken last."""
    values = []
    magnitude = 0.0
    for item in iterable:
        value = _as_double(item)
        values.append(value)
        magnitude += abs(value)
        if magnitude > 1e307:
            try:
                _math.fsum(values)
            except ValueError:  # -inf + inf: C says so only at the end
                pass
    return _math.fsum(values)


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
