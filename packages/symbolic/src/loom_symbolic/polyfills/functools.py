"""``functools``' C functions, in Python."""

from __future__ import annotations

import functools as _functools
from typing import Any

from . import polyfill

_NO_INITIAL = object()


@polyfill(_functools.reduce)
def reduce(function: Any, iterable: Any, initial: Any = _NO_INITIAL, /) -> Any:
    """``functools.reduce``: fold ``iterable`` from the left with ``function``."""
    it = iter(iterable)
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
