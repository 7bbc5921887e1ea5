"""``math``'s functions that reduce an iterable, in Python: traced where the translator's own model of
``math`` (folding constants, symbolic ints) does not apply, such as ``math.prod([n, 2])`` with ``n`` a
symbolic size."""

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
