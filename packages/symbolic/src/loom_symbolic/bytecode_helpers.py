"""Small functions the rewritten bytecode calls at run time.

They are plain Python so that the translator can model them when a resume function that calls them
is translated in its turn (see ``variables/builtins.py``).
"""

from __future__ import annotations

import builtins
import functools
import sys
import types
from collections.abc import Iterable, Iterator
from typing import Any

from .per_call_classes import note_made


def iter_at(iterable: Iterable[Any], index: int) -> Iterator[Any]:
    """An iterator over ``iterable`` that has already produced ``index`` items.

    A loop interrupted by a graph break continues in a resume function: the loop's iterator is passed
    as (iterable, index) and rebuilt with this, so a list is still iterated live, as CPython does.
    """
    if type(iterable) in _SEQUENCES:  # the common case first (a loop resumed once per pass calls this per pass)
        iterator = iter(iterable)
        iterator.__setstate__(index)
        return iterator
    resumed_from = getattr(type(iterable), "iter_from", None)
    if resumed_from is not None:
        return resumed_from(iterable, index)
    iterator = iter(iterable)
    if iterator is not iterable and type(iterator) in _POSITIONED:
        # A fresh list, tuple or range iterator is an index: set it in one step (a loop resumed once per
        # pass would otherwise cost quadratic time). Past the end it is exhausted, as CPython's is. An
        # iterator looped over itself is stepped: ``index`` counts from where the loop found it.
        iterator.__setstate__(index)
        return iterator
    for _ in range(index):
        if next(iterator, _END) is _END:
            break  # shorter than the position (it shrank): exhausted, like the iterators above
    return iterator


_END = object()


#: Iterables whose fresh iterator's whole state is the position ``__setstate__`` sets (see ``_POSITIONED``).
_SEQUENCES = frozenset({list, tuple, range})
#: Iterators whose whole state is the position ``__setstate__`` sets.
_POSITIONED = frozenset({type(iter([])), type(iter(())), type(iter(range(0))), type(iter(range(1 << 64)))})


class Bounce(tuple):
    """``(function, arguments)``: a resume function's call, handed back to :func:`run_resume` instead
    of made (a tail call).

    The rewritten code of a resume function ends by going on in the next resume function. Calling it
    from there would nest one frame per graph break that ran, and a loop with a break in its body
    passes through two resume functions per pass: a long loop would exceed the recursion limit. So a
    resume function returns the call it would make, and the one loop in :func:`run_resume` makes it.
    A tuple subclass, so that making one runs no Python code.
    """

    __slots__ = ()


def run_resume(function: Any, *arguments: Any) -> Any:
    """Call resume function ``function`` and every resume function it hands on (see :class:`Bounce`).

    Only the rewritten code of an original function calls this, so the rewritten code of a resume
    function always runs under it and may return a :class:`Bounce`.
    """
    result = function(*arguments)
    while type(result) is Bounce:
        function, arguments = result
        result = function(*arguments)
    return result
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

    def iter_from(self, index: int) -> Iterator[Any]:
        """The enumeration after ``index`` items, without taking them one by one (see :func:`iter_at`)."""
        return enumerate(iter_at(self.items, index), self.start + index)


class LiveZip:
    """``zip(*lists)`` handed to a loop resumed after a graph break (see :class:`LiveEnumerate`)."""

    def __init__(self, *lists: list[Any]) -> None:
        self.lists = lists

    def __iter__(self) -> Iterator[Any]:
        return zip(*self.lists)

    def iter_from(self, index: int) -> Iterator[Any]:
        """The zip after ``index`` items, without taking them one by one (see :func:`iter_at`)."""
        return zip(*(iter_at(items, index) for items in self.lists))


class LiveIterator:
    """An iterator that is its own state (a generator from the frame, an ``enumerate`` or ``zip`` over an
    iterator a name holds too), handed to a loop resumed after a graph break: every item the loop took was
    taken from it for real, so it goes on from where it is."""

    def __init__(self, iterator: Iterator[Any]) -> None:
        self.iterator = iterator

    def __iter__(self) -> Iterator[Any]:
        return self.iterator

    def iter_from(self, index: int) -> Iterator[Any]:
        """The iterator itself, whatever ``index`` says (see :func:`iter_at`)."""
        return self.iterator


def chained(exc: BaseException, cause: BaseException | None, context: BaseException | None,
            suppress_context: bool) -> BaseException:
    """``exc`` with the exception chain (PEP 3134) the trace gave it: an exception made while tracing
    and rebuilt after the graph keeps its ``__cause__``, ``__context__`` and ``__suppress_context__``."""
    exc.__cause__ = cause
    exc.__context__ = context
    exc.__suppress_context__ = suppress_context  # after __cause__, which sets it
    return exc


def noted(exc: BaseException, notes: list) -> BaseException:
    """``exc`` with the ``__notes__`` list the trace gave it (``add_note`` on an exception made there)."""
    exc.__notes__ = notes
    return exc


def raised_here(exc: BaseException, line: int) -> BaseException:
    """``exc`` with the traceback its raise in the calling frame (the compiled one) gave it: that frame, at
    ``line``, and nothing below (it was raised and caught there). Its ``tb_lasti`` is -1, no instruction: the
    frame runs the rewritten code, so ``traceback`` takes the line from ``tb_lineno`` (and shows no columns)."""
    exc.__traceback__ = types.TracebackType(None, sys._getframe(1), -1, line)
    return exc


def raised_again(exc: BaseException) -> BaseException:
    """``exc`` with a traceback, as the ``raise`` the trace modelled left it: raised and caught here (so
    ``__traceback__`` is set, if to this frame rather than the program's), its ``__context__`` and
    ``__suppress_context__`` kept as the trace gave them."""
    context, suppress = exc.__context__, exc.__suppress_context__
    try:
        raise exc
    except BaseException:
        pass
    exc.__context__ = context
    exc.__suppress_context__ = suppress
    return exc


def with_attributes(function: Any, attributes: dict[str, Any]) -> Any:
    """``function`` (made after a graph) with the attributes the trace set on it: its names and
    ``__doc__`` as ``functools.wraps`` left them, and the items of its ``__dict__``."""
    for name, value in attributes.items():
        setattr(function, name, value)
    return function


def made_function(code: types.CodeType, f_globals: dict[str, Any], defaults: tuple | None,
                  kwdefaults: dict[str, Any] | None, closure: tuple | None) -> types.FunctionType:
    """A function made after a graph as MAKE_FUNCTION makes it, but with ``f_globals``: one that an inlined
    function of another module made (its globals are that module's, not the rewritten frame's)."""
    function = types.FunctionType(code, f_globals, code.co_name, defaults, closure)
    function.__kwdefaults__ = kwdefaults
    return function


def class_of_this_call(code: types.CodeType, f_globals: dict[str, Any], closure: tuple, name: str,
                       bases: tuple, decorators: tuple = ()) -> type:
    """A class statement made again by the compiled code, on each call, as eager makes it: its body ``code``
    run by ``__build_class__`` with the frame's own cells (a class whose methods read values of each call),
    then its ``decorators`` applied, innermost first."""
    made = builtins.__build_class__(types.FunctionType(code, f_globals, code.co_name, None, closure or None),
                                    name, *bases)
    for decorator in decorators:
        made = decorator(made)
    return note_made(made, code)


def class_of_type_call(name: str, bases: tuple, namespace: dict[str, Any]) -> type:
    """``type(name, bases, namespace)`` made again by the compiled code, on each call, where a base is a class
    made on each call: this call's bases, a copy of the namespace the trace checked."""
    return note_made(type(name, bases, dict(namespace)), None)


def partial_over(function: Any, args: tuple, keywords: dict[str, Any]) -> functools.partial:
    """``functools.partial(function, *args, **keywords)`` whose ``keywords`` is ``keywords`` itself, not a
    copy: a partial made in the trace whose keywords dict the trace also held (``p.keywords``)."""
    made = functools.partial(function)
    made.__setstate__((function, args, keywords, None))
    return made


def start_generator(function: Any, positional: tuple, varargs: tuple, keywords: dict[str, Any],
                    varkw: dict[str, Any]) -> Any:
    """A generator the trace made but never started, made again after a graph by calling its function
    with the arguments it was bound to: unstarted, it has run none of its code."""
    return function(*positional, *varargs, **keywords, **varkw)
