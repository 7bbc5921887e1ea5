"""Small functions the rewritten bytecode calls at run time.

They are plain Python so that the translator can model them when a resume function that calls them
is translated in its turn (see ``variables/builtins.py``).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any


def iter_at(iterable: Iterable[Any], index: int) -> Iterator[Any]:
    """An iterator over ``iterable`` that has already produced ``index`` items.

    A loop interrupted by a graph break continues in a resume function: the loop's iterator is passed
    as (iterable, index) and rebuilt with this, so a list is still iterated live, as CPython does.
    """
    iterator = iter(iterable)
    for _ in range(index):
        next(iterator)
    return iterator


def reposition_iterator(iterator: Iterator[Any], index: int, exhausted: bool) -> None:
    """Move a list or tuple iterator the trace advanced to ``index``; one the trace ran to its end is
    exhausted as CPython leaves it (items appended to its list later are not seen)."""
    iterator.__setstate__(index)
    if exhausted:
        for _ in iterator:
            pass


def advance_iterator(iterator: Iterator[Any], steps: int, exhausted: bool) -> None:
    """Take ``steps`` items from a dict iterator the trace advanced (it has no ``__setstate__``); one
    the trace ran to its end is exhausted."""
    for _ in range(steps):
        next(iterator)
    if exhausted:
        for _ in iterator:
            pass


class LiveEnumerate:
    """``enumerate(items, start)`` over a list, handed to a loop resumed after a graph break: with
    :func:`iter_at` it goes on iterating the live list, so items stored or appended after the break are
    seen, as CPython does."""

    def __init__(self, items: list[Any], start: int) -> None:
        self.items = items
        self.start = start

    def __iter__(self) -> Iterator[Any]:
        return enumerate(self.items, self.start)


class LiveZip:
    """``zip(*lists)`` handed to a loop resumed after a graph break (see :class:`LiveEnumerate`)."""

    def __init__(self, *lists: list[Any]) -> None:
        self.lists = lists

    def __iter__(self) -> Iterator[Any]:
        return zip(*self.lists)


def chained(exc: BaseException, cause: BaseException | None, context: BaseException | None,
            suppress_context: bool) -> BaseException:
    """``exc`` with the exception chain (PEP 3134) the trace gave it: an exception made while tracing
    and rebuilt after the graph keeps its ``__cause__``, ``__context__`` and ``__suppress_context__``."""
    exc.__cause__ = cause
    exc.__context__ = context
    exc.__suppress_context__ = suppress_context  # after __cause__, which sets it
    return exc


def with_attributes(function: Any, attributes: dict[str, Any]) -> Any:
    """``function`` (made after a graph) with the attributes the trace set on it: its names and
    ``__doc__`` as ``functools.wraps`` left them, and the items of its ``__dict__``."""
    for name, value in attributes.items():
        setattr(function, name, value)
    return function
