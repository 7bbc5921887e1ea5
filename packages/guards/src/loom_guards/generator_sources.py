"""Sources that reach into a generator object: the function whose call made it.

A generator exposes its code (``gi_code``) and its frame's variables (``gi_frame.f_locals``) but not its
closure cells; the function it was made from holds them (``__closure__``) and the generator's frame keeps
that function alive. Guarding that function's identity pins the cells, as a function passed in is pinned.
"""

from __future__ import annotations

import gc
import types
from typing import Any

from .sources import _Chained, _check_base, _set_chained


def generator_function(generator: Any) -> types.FunctionType:
    """The function whose call made ``generator`` (found among the objects its frame refers to)."""
    code = getattr(generator, "gi_code", None)
    if code is None:
        raise TypeError(f"a {type(generator).__name__} is not a generator")
    for referent in gc.get_referents(generator):
        if type(referent) is types.FunctionType and referent.__code__ is code:
            return referent
    raise LookupError("the generator's function is not reachable from it (finished, or made from its code alone)")


class GeneratorFunction(_Chained):
    """The function that made a generator: ``base`` is the generator object (read with
    :func:`generator_function`; a finished generator, whose frame is gone, fails the guard)."""

    __slots__ = ()
    fetch_cost = 4

    def __init__(self, base: Any) -> None:
        _set_chained(self, _check_base("GeneratorFunction", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value: Any) -> Any:
        return generator_function(base_value)

    def __str__(self) -> str:
        return f"function_of({self._base})"
