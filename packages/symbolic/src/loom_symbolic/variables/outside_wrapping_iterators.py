"""Builtin iterators from outside the frame that wrap other iterators: ``map``, ``filter``, ``zip`` and
``enumerate`` objects (passed in, kept on an object or in a global), and list reverse iterators.

A wrapper's parts are read through its ``__reduce__`` (``(map, (fn, it1, it2...))``, ``(enumerate, (it,
count))``...), which builds nothing and runs no user code; each inner iterator is wrapped through that source
like any iterator from the frame, so its own position is guarded and moved after the graph as the trace moved
it. ``map``, ``filter`` and ``zip`` keep no state of their own beyond their inner iterators, so the trace walks
them as the translator's own (:class:`.iterators.MapIterator`...) and the real object needs nothing more.
``enumerate`` keeps its count, which only ``next()`` moves: the real one takes as many steps as the trace took,
before any other effect (its inner list or tuple iterator then still holds the items it held on entry; the
inner's own reposition follows, absolute), so only steps over items present on entry are modelled. A list
reverse iterator is read like a list iterator (its ``__setstate__`` sets its index too), and so are ``reversed``
over a tuple and str and bytes iterators (their sequence a constant). Across a graph break the real wrapper itself
goes on.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from loom_guards import Attr, Called, Item

from .. import bytecode_helpers
from ..errors import Unsupported
from . import registry
from .constant import ConstantVariable
from .containers import ListVariable, TupleVariable
from .iterators import EnumerateIterator, FilterIterator, IteratorVariable, MapIterator, ZipIterator
from .outside_iterators import PositionedIterator, _FromOutside
from .outside_sourced import SourcedIterator
from .wrap_rules import _iterator_from_frame, _object_variable

_REVERSED_LIST = type(reversed([]))


def _part(source: Any, index: int) -> Any:
    """``source.__reduce__()[1][index]``: one argument the wrapper would be rebuilt from."""
    return Item(Item(Called(Attr(source, "__reduce__")), 1), index)


def _inner(tx, value: Any, source: Any) -> IteratorVariable | None:
    """An inner iterator wrapped through its source, when the trace models it and moves the real one."""
    inner = registry.wrap(tx, value, source)
    if isinstance(inner, IteratorVariable) and (isinstance(inner, _FromOutside) or isinstance(inner, _Wrapping)):
        return inner
    return None


class _Wrapping(SourcedIterator):
    """A wrapper from outside the frame: the real object is its own position (its inner iterators are moved
    by their own effects), so a loop or a name across a graph break goes on with the real object."""

    source: Any
    real_type: type

    def python_type(self) -> type:
        return self.real_type

    def wraps_a_named_iterator(self, codegen) -> bool:
        return False

    def describe(self) -> str:
        return f"{self.real_type.__name__} object"


class OutsideMap(_Wrapping, MapIterator):
    """A ``map`` object from outside the frame, walked as the translator's own over its inner iterators."""

    def __init__(self, fn, inners: list[IteratorVariable], real_type: type, source: Any) -> None:
        super().__init__(fn, inners)
        self.real_type, self.source = real_type, source


class OutsideFilter(_Wrapping, FilterIterator):
    """A ``filter`` object from outside the frame (its predicate None or a callable the trace calls)."""

    def __init__(self, fn, inner: IteratorVariable, real_type: type, source: Any) -> None:
        super().__init__(fn, inner)
        self.real_type, self.source = real_type, source


class OutsideZip(_Wrapping, ZipIterator):
    """A ``zip`` object from outside the frame (``strict`` read from its ``__reduce__`` too)."""

    def __init__(self, inners: list[IteratorVariable], strict: bool, real_type: type, source: Any) -> None:
        super().__init__(inners, strict)
        self.real_type, self.source = real_type, source


class OutsideEnumerate(_Wrapping, EnumerateIterator):
    """An ``enumerate`` object from outside the frame over a list or tuple iterator: its count is guarded,
    and the real one takes the trace's steps before any other effect (see the module's docstring)."""

    def __init__(self, inner: PositionedIterator, count: int, entry_length: int, real_type: type, source: Any) -> None:
        super().__init__(inner, count)
        self.real_type, self.source = real_type, source
        self.steps = 0
        #: how many items the inner iterator's sequence held on entry: a step past them is one the real
        #: enumerate could not take before the other effects (an item the frame appends)
        self.entry_length = entry_length

    def next_item(self, tx) -> Any:
        inner = self.inner
        if not inner.done and inner.index < len(inner.target.items) and inner.index >= self.entry_length:
            raise Unsupported("next() on an enumerate from outside the frame past its items on entry",
                              "its count is moved by stepping the real enumerate before the frame's other effects")
        item = super().next_item(tx)
        if item is not None:
            if self.steps == 0:
                tx.output.side_effects.advanced_iterator(self, first=True)
            self.steps += 1
        return item

    def replay(self) -> tuple[Callable[..., None], tuple]:
        return bytecode_helpers.advance_iterator, (self.steps, False)


class PositionedReversedIterator(_FromOutside, IteratorVariable):
    """A list reverse iterator from outside the frame: the list and index it resumes from are read (and
    guarded) through its ``__reduce__``; it walks the live list down as CPython's does."""

    def __init__(self, target: ListVariable, index: int, real_type: type, source: Any) -> None:
        self.target = target
        self.index = index
        self.real_type = real_type
        self.source = source
        self.exhausted = False

    def next_item(self, tx) -> Any:
        if self.exhausted or not 0 <= self.index < len(self.target.items):
            item = None
        else:
            item = self.target.items[self.index]
            self.index -= 1
        if item is None:
            if self.exhausted:
                return None
            self.exhausted = True
        tx.output.side_effects.advanced_iterator(self)
        return item

    def remaining(self) -> list | None:
        return [] if self.exhausted else list(reversed(self.target.items[: self.index + 1]))

    def replay(self) -> tuple[Callable[..., None], tuple]:
        if not self.exhausted and self.index > len(self.target.items) - 1:
            # its list shrank below it: the next step ends it, but ``__setstate__`` would clamp it to the last item
            raise Unsupported("a list reverse iterator from outside the frame whose list shrank below it",
                              "its __setstate__ clamps the index to the list, so its position cannot be replayed")
        return bytecode_helpers.reposition_iterator, (max(self.index, -1), self.exhausted)


def _wrap_wrapping(tx, value: Any, source: Any) -> Any:
    def make() -> Any:
        tx.output.guards.add("type", source, value)
        reduced = value.__reduce__()
        made = _MAKERS[type(value)](tx, value, source, reduced)
        if made is None:  # an inner iterator the trace does not move (a generator, a user iterator)
            return _object_variable(tx, value, source)
        return made

    return _iterator_from_frame(tx, value, source, make)


def _make_map(tx, value, source, reduced) -> Any:
    args = reduced[1]
    inners = [_inner(tx, it, _part(source, i)) for i, it in enumerate(args[1:], 1)]
    if None in inners:
        return None
    return OutsideMap(registry.wrap(tx, args[0], _part(source, 0)), inners, type(value), source)


def _make_filter(tx, value, source, reduced) -> Any:
    fn, it = reduced[1]
    inner = _inner(tx, it, _part(source, 1))
    if inner is None:
        return None
    fn_variable = None if fn is None else registry.wrap(tx, fn, _part(source, 0))
    return OutsideFilter(fn_variable, inner, type(value), source)


def _make_zip(tx, value, source, reduced) -> Any:
    inners = [_inner(tx, it, _part(source, i)) for i, it in enumerate(reduced[1])]
    if None in inners:
        return None
    strict = len(reduced) > 2 and bool(reduced[2])
    # ``(zip, iterators)``, or ``(zip, iterators, True)`` for a strict one: its length tells them apart
    tx.output.guards.add("constant", _reduced_length(source), len(reduced))
    return OutsideZip(inners, strict, type(value), source)


def _make_enumerate(tx, value, source, reduced) -> Any:
    it, count = reduced[1]
    inner = _inner(tx, it, _part(source, 0))
    if not isinstance(inner, PositionedIterator):  # its count is moved by stepping the real enumerate
        return None
    tx.output.guards.add("constant", _part(source, 1), count)
    # the real sequence as it is on entry (the trace may have changed its variable already)
    return OutsideEnumerate(inner, count, len(it.__reduce__()[1][0]), type(value), source)


def _make_reversed(tx, value, source, reduced) -> Any:
    if len(reduced) < 3:  # exhausted: it let go of its list
        target, index = ListVariable([]), -1
        tx.output.guards.add("constant", Called(Attr(source, "__length_hint__")), 0)
        made = PositionedReversedIterator(target, index, type(value), source)
        made.exhausted = True
        return made
    index = reduced[2]
    tx.output.guards.add("constant", Item(Called(Attr(source, "__reduce__")), 2), index)
    target = registry.wrap(tx, reduced[1][0], _part(source, 0))
    if not isinstance(target, ListVariable) or isinstance(target, TupleVariable):
        return None
    return PositionedReversedIterator(target, index, type(value), source)


def _make_reversed_tuple(tx, value, source, reduced) -> Any:
    """``reversed(a_tuple)`` (the generic ``reversed``, over a sequence it indexes): as a list reverse iterator,
    over a tuple, which no step of the frame can shrink."""
    tx.output.guards.add("constant", _reduced_length(source), len(reduced))
    if len(reduced) < 3:  # exhausted: it let go of its sequence
        made = PositionedReversedIterator(TupleVariable([]), -1, type(value), source)
        made.exhausted = True
        return made
    if type(reduced[1][0]) is not tuple:  # another sequence: its __getitem__ and __len__ are the program's
        return None
    tx.output.guards.add("constant", Item(Called(Attr(source, "__reduce__")), 2), reduced[2])
    target = registry.wrap(tx, reduced[1][0], _part(source, 0))
    if isinstance(target, ConstantVariable):  # a tuple of constants, guarded as one value
        target = TupleVariable([ConstantVariable(v) for v in reduced[1][0]], target.source)
    if not isinstance(target, TupleVariable):
        return None
    return PositionedReversedIterator(target, reduced[2], type(value), source)


def _make_text_iterator(tx, value, source, reduced) -> Any:
    """A str or bytes iterator: its text and position are constants (guarded), its ``__setstate__`` absolute."""
    tx.output.guards.add("constant", _reduced_length(source), len(reduced))
    text = reduced[1][0]
    tx.output.guards.add("constant", _part(source, 0), text)
    index = reduced[2] if len(reduced) > 2 else 0
    if len(reduced) > 2:
        tx.output.guards.add("constant", Item(Called(Attr(source, "__reduce__")), 2), index)
    return PositionedIterator(TupleVariable([ConstantVariable(c) for c in text]), index, type(value), source)


def _reduced_length(source: Any) -> Any:
    """``len(source.__reduce__())``: an exhausted iterator reduces to two parts, one with a position to three."""
    return Called(Attr(Called(Attr(source, "__reduce__")), "__len__"))


_MAKERS: dict[type, Callable[..., Any]] = {
    map: _make_map,
    filter: _make_filter,
    zip: _make_zip,
    enumerate: _make_enumerate,
    _REVERSED_LIST: _make_reversed,
    reversed: _make_reversed_tuple,
    **{type(iter(text)): _make_text_iterator for text in ("", "\u00e9", b"")},
}

# after the list, range and dict iterators' rules (80-100) and before the builtin callables' (210)
registry.add_rule(105, lambda v: type(v) in _MAKERS, _wrap_wrapping)
for _cls in _MAKERS:
    registry.add_exact_type(_cls, _wrap_wrapping)
