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
