"""Guards over the identity of several sources: ``NoAliasing`` (pairwise distinct objects) and
``SameObject`` (two sources hold the very same object)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..sources import Source
from .base import Guard, _check_source, _set, type_name


class NoAliasing(Guard):
    """The sources hold pairwise distinct objects (tensors a graph assumed to be distinct inputs)."""

    __slots__ = ("_sources",)
    kind = "no_aliasing"
    cost = 5

    def __init__(self, sources: Iterable[Source]) -> None:
        srcs: dict[Source, None] = {}  # ordered, and deduplicated by hash: a model has hundreds of inputs
        for s in sources:
            _check_source("NoAliasing", s)
            srcs[s] = None
        if len(srcs) < 2:
            raise ValueError("NoAliasing needs at least two distinct sources")
        _set(self, _sources=tuple(srcs))

    @property
    def sources(self) -> tuple[Source, ...]:
        return self._sources

    def _key(self) -> tuple:
        return (frozenset(self._sources),)

    def describe(self) -> str:
        return f"{', '.join(map(str, self._sources))} are distinct objects"

    def explain(self, *values: Any) -> tuple[str, str] | None:
        seen: dict[int, Source] = {}
        for src, value in zip(self._sources, values):
            other = seen.get(id(value))
            if other is not None:
                return (f"{other} is not {src}", "the same object")
            seen[id(value)] = src
        return None


class SameObject(Guard):
    """``a is b``: two sources hold the very same object.

    For one value the translator reached two ways (a tensor passed as an argument and also read from a
    module, say) and gave a single graph input: the graph is only valid while both sources still hold
    the same object. The two sources are unordered (``SameObject(a, b) == SameObject(b, a)``).
    """

    __slots__ = ("_sources",)
    kind = "same_object"
    cost = 5

    def __init__(self, a: Source, b: Source) -> None:
        _check_source("SameObject", a)
        _check_source("SameObject", b)
        if a == b:
            raise ValueError(f"SameObject needs two distinct sources, got {a} twice")
        _set(self, _sources=(a, b))

    @property
    def sources(self) -> tuple[Source, ...]:
        return self._sources

    def _key(self) -> tuple:
        return (frozenset(self._sources),)

    def describe(self) -> str:
        a, b = self._sources
        return f"{a} is {b}"

    def explain(self, a: Any, b: Any) -> tuple[str, str] | None:
        if a is b:
            return None
        return (
            self.describe(),
            f"different objects: {type_name(type(a))} (id {id(a):#x}) and {type_name(type(b))} (id {id(b):#x})",
        )
