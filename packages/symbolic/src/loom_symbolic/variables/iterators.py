"""Iterators while tracing: loops over them are unrolled, one item at a time."""

from __future__ import annotations

import collections
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from .. import bytecode_helpers
from ..errors import Unsupported, UserError, args_of
from . import attributes as _attributes
from .base import Variable
from .constant import ConstantVariable
from .containers import DictVariable, ListVariable, SequenceVariable, SetVariable, TupleVariable, key_variable
from .iterator_methods import IteratorMethodVariable
from .operand_dispatch import constant_runs_python
from .stop_carrying import StopCarrying

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator



class IteratorVariable(Variable):
    """An iterator; :meth:`next_item` returns the next variable, or None when exhausted."""

    mutable = True

    def remaining(self) -> list[Variable] | None:
        """The items still to come, when they are known without running anything (else None)."""
        return None

    def live_position(self) -> tuple[Callable[..., None], int] | None:
        """How to push an iterable that this iterator goes on iterating live, and how many of its items
        were taken: None when the iterator is not over live containers (its remaining items are passed)."""
        return None

    def hands_on_itself(self) -> bool:
        """Whether the iterable :meth:`reconstruct_position` pushes is the real iterator itself, whose own
        state is its position: a loop going on natively leaves its index at 0 (``breaks``)."""
        return False

    def reconstruct_position(self, codegen) -> None:
        """Push (iterable, index) such that ``iter_at`` rebuilds this iterator (see graph breaks)."""
        if codegen.built(self):  # a name holds it too, rebuilt already: the loop goes on with that very object
            codegen.reconstruct(self)
            codegen.load_const(0)
            return
        if self.wraps_a_named_iterator(codegen):
            # Rebuilt over the live list, the loop would walk a copy of the iterator the name holds: the
            # program sees them as one (``for n, v in enumerate(it)`` then ``list(it)``). Made natively over
            # the rebuilt one instead, and handed on as itself.
            codegen.call_const(bytecode_helpers.LiveIterator, 1, lambda: self.reconstruct_natively(codegen))
            codegen.load_const(0)
            return
        live = self.live_position()
        if live is not None:
            push_iterable, index = live
            push_iterable(codegen)
            codegen.load_const(index)
            return
        items = self.remaining()
        if items is None:
            raise Unsupported(f"a {self.describe()} live across a graph break", "its state cannot be rebuilt")
        for item in items:
            codegen.reconstruct(item)
        codegen.emit("BUILD_TUPLE", len(items))
        codegen.load_const(0)

    def wraps_a_named_iterator(self, codegen) -> bool:
        """Whether this iterator (``enumerate``, ``zip``) takes its items from an iterator a name holds too,
        rebuilt already (``codegen.built``)."""
        return False

    def reconstruct_natively(self, codegen) -> None:
        """Push this iterator made as the program made it, over its rebuilt inner iterators."""
        raise Unsupported(f"a {self.describe()} live across a graph break", "its state cannot be rebuilt")

    def reconstruct_live(self, codegen) -> None:
        """Push ``iter_at(iterable, index)``: for a list, range or dict-keys iterator made in the frame, an
        iterator of its very type over the live container at its position (a local across a graph break)."""
        push_iterable, index = self.live_position()
        codegen.load_callable(bytecode_helpers.iter_at)
        push_iterable(codegen)
        codegen.load_const(index)
        codegen.call(2)

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        raise NotImplementedError

    def next_or_stop(self, tx: InstructionTranslator) -> Variable:
        """``next(self)``: the next item, or the StopIteration Python raises (a generator's carries its value)."""
        item = self.next_item(tx)
        if item is None:
            if isinstance(stop := getattr(self, "stop_iteration", None), Callable):
                raise stop(tx)
            raise UserError("next()", "StopIteration", exc_type=StopIteration, exc_args=())
        return item

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in ("__iter__", "__next__", "__length_hint__"):  # it.__next__() is next(it)
            return IteratorMethodVariable(self, name)
        return super().var_getattr(tx, name)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        items = []
        while (item := self.next_item(tx)) is not None:
            items.append(item)
        return items

    def describe(self) -> str:
        return type(self).__name__.removesuffix("Variable").lower()


class SnapshotIterator(IteratorVariable):
    """An iterator over items fixed when it was made (tuples, dict keys, tensor rows, ...)."""

    def __init__(self, items: list[Variable], over_tuple: bool = False) -> None:
        self.items = items
        self.index = 0
        #: ``iter()`` of a plain tuple: a name holding it across a break is rebuilt as ``iter(the rest)``
        self.over_tuple = over_tuple

    def python_type(self) -> type:
        return type(iter(()))

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.index >= len(self.items):
            return None
        self.index += 1
        return self.items[self.index - 1]

    def remaining(self) -> list[Variable] | None:
        return self.items[self.index :]

    def reconstruct(self, codegen) -> None:
        if not self.over_tuple:  # reversed(), a module's iterators: another type, which a tuple's would not be
            super().reconstruct(codegen)
            return
        codegen.load_callable(iter)
        for item in self.remaining():
            codegen.reconstruct(item)
        codegen.emit("BUILD_TUPLE", len(self.remaining()))
        codegen.call(1)

    def live_position(self) -> tuple[Callable[..., None], int]:
        """All the items and how many were taken: a loop resumed pass after pass hands on an iterable
        of one length and a position that varies (see :mod:`.resumed_loops`)."""

        def push(codegen) -> None:
            for item in self.items:
                codegen.reconstruct(item)
            codegen.emit("BUILD_TUPLE", len(self.items))

        return push, self.index


class ListIterator(IteratorVariable):
    """Iterates a list live, as CPython does: appends during the loop are seen."""

    def __init__(self, target: ListVariable) -> None:
        self.target = target
        self.index = 0
        #: whether the end was reached: CPython's iterator then lets go of its list, so it stays exhausted
        self.done = False

    def python_type(self) -> type:
        return type(iter([]))

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.done or self.index >= len(self.target.items):
            self.done = True
            return None
        self.index += 1
        return self.target.items[self.index - 1]

    def remaining(self) -> list[Variable] | None:
        return [] if self.done else self.target.items[self.index :]

    def live_position(self) -> tuple[Callable[..., None], int]:
        """The list itself: the loop keeps iterating the live list (an exhausted one, nothing)."""
        if self.done:
            return (lambda codegen: codegen.emit("BUILD_LIST", 0)), 0
        return (lambda codegen: codegen.reconstruct(self.target)), self.index

    reconstruct = IteratorVariable.reconstruct_live


class DictIterator(IteratorVariable):
    """Iterates a dict, one of its views (``kind``: keys, values, items) or a set live, as CPython does:
    values are read when they are reached, and a change of size during the loop raises RuntimeError."""

    def __init__(self, target: DictVariable | SetVariable, kind: str = "keys") -> None:
        self.target = target
        self.kind = kind
        self.keys = self._current_keys()
        self.broken = False
        self.index = 0
        self.done = False  # the end was reached: CPython's iterator lets go of its container (no more checks)

    def python_type(self) -> type:
        if isinstance(self.target, SetVariable):
            return type(iter(set()))
        return type(iter(getattr({}, self.kind)()))

    def _current_keys(self) -> list:
        if isinstance(self.target, SetVariable):
            return self.target.keys_in_order()  # the real set's order
        return list(self.target.items)

    def _unchanged(self) -> bool:
        """Whether the container still holds the keys it held when the loop began (else raise, or refuse)."""
        keys = self._current_keys()
        if self.broken or len(keys) != len(self.keys):
            self.broken = True  # CPython's iterator stays broken: every later step raises too
            what = "Set" if isinstance(self.target, SetVariable) else "dictionary"
            raise UserError(f"{what} iteration", f"{what} changed size during iteration", exc_type=RuntimeError,
                            exc_args=(f"{what} changed size during iteration",))
        return keys == self.keys

    def _item(self, key: object) -> Variable:
        if isinstance(self.target, SetVariable):
            return self.target.values[key]
        if self.kind == "keys":
            return key_variable(key)
        if self.kind == "values":
            return self.target.items[key]
        return TupleVariable([key_variable(key), self.target.items[key]])

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.done:
            return None
        if isinstance(self.target, DictVariable) and issubclass(self.target.python_type(), collections.OrderedDict):
            return self._next_ordered()
        if not self._unchanged():
            raise Unsupported("a loop over a container whose keys changed in the loop",
                              "what CPython does then depends on the container's memory layout")
        if self.index >= len(self.keys):
            self.done = True
            return None
        self.index += 1
        return self._item(self.keys[self.index - 1])

    def _next_ordered(self) -> Variable | None:
        # An OrderedDict's iterator holds the key it hands out next, found when it handed out the one before:
        # past the last it is done unchecked; before, any key added, removed or moved since the loop began
        # raises, whatever the sizes (its linked list's state counter)
        if self.index >= len(self.keys):
            self.done = True
            return None
        if self._current_keys() != self.keys:
            self.done = True
            message = "OrderedDict mutated during iteration"
            raise UserError("OrderedDict iteration", message, exc_type=RuntimeError, exc_args=(message,))
        self.index += 1
        return self._item(self.keys[self.index - 1])

    def remaining(self) -> list[Variable] | None:
        if self.done:
            return []
        if self.broken or self._current_keys() != self.keys:
            return None
        return [self._item(key) for key in self.keys[self.index :]]

    def live_position(self) -> tuple[Callable[..., None], int] | None:
        """The dict itself: a loop over a dict's keys keeps iterating the live dict. A rebuilt set may
        order its members differently, and a view is not rebuilt: those resume over the items left."""
        if isinstance(self.target, SetVariable) or self.kind != "keys" or self.remaining() is None:
            return None
        return (lambda codegen: codegen.reconstruct(self.target)), self.index


class RangeIterator(IteratorVariable):
    """Iterates a constant range without materialising it."""

    def __init__(self, values: range) -> None:
        self.values = values
        self.index = 0

    def python_type(self) -> type:
        return type(iter(range(0)))

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.index >= len(self.values):
            return None
        self.index += 1
        return ConstantVariable(self.values[self.index - 1])

    def remaining(self) -> list[Variable] | None:
        return [ConstantVariable(v) for v in self.values[self.index :]]

    def live_position(self) -> tuple[Callable[..., None], int]:
        return (lambda codegen: codegen.load_const(self.values)), self.index

    reconstruct = IteratorVariable.reconstruct_live


class ZipIterator(IteratorVariable):
    """``zip(a, b, ...)``: stops at the shortest, like Python."""

    def __init__(self, inners: list[IteratorVariable], strict: bool = False) -> None:
        self.inners = inners
        self.strict = strict
        #: the inner iterator whose end ended the last step (see :class:`.stop_carrying.StopCarrying`)
        self.ended_by: IteratorVariable | None = None

    def python_type(self) -> type:
        return zip

    def remaining(self) -> list[Variable] | None:
        parts = [inner.remaining() for inner in self.inners]
        if any(p is None for p in parts):
            return None
        if self.strict and len({len(p) for p in parts}) > 1:
            return None  # iterated item by item, so the ValueError comes after the common items, as in Python
        return [TupleVariable(list(items)) for items in zip(*parts)]

    def wraps_a_named_iterator(self, codegen) -> bool:
        return any(_named(codegen, inner) for inner in self.inners)

    def reconstruct_natively(self, codegen) -> None:
        if self.strict:
            super().reconstruct_natively(codegen)
        codegen.call_const(zip, len(self.inners), lambda: [codegen.reconstruct(inner) for inner in self.inners])

    def live_position(self) -> tuple[Callable[..., None], int] | None:
        """Live iterables taken to one index are zipped live (:class:`~loom_symbolic.bytecode_helpers.LiveZip`)."""
        positions = [inner.live_position() for inner in self.inners]
        if self.strict or None in positions or len({index for _, index in positions}) != 1:
            return None

        def push(codegen) -> None:
            codegen.load_callable(bytecode_helpers.LiveZip)
            for push_inner, _ in positions:
                push_inner(codegen)
            codegen.call(len(positions))

        return push, positions[0][1]

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        items = []
        for index, inner in enumerate(self.inners):
            item = inner.next_item(tx)
            if item is None:
                self.ended_by = inner  # (its StopIteration is the one C leaves set: map's and filter's read it)
                if self.strict:
                    self._check_all_exhausted(tx, index)
                return None
            items.append(item)
        return TupleVariable(items)

    def _check_all_exhausted(self, tx: InstructionTranslator, index: int) -> None:
        """``zip(strict=True)``: argument ``index`` ran out; raise Python's ValueError unless all did."""
        if index > 0:
            earlier = "argument 1" if index == 1 else f"arguments 1-{index}"
            message = f"zip() argument {index + 1} is shorter than {earlier}"
        else:
            longer = next((i for i, inner in enumerate(self.inners[1:], 1) if inner.next_item(tx) is not None), None)
            if longer is None:
                return
            earlier = "argument 1" if longer == 1 else f"arguments 1-{longer}"
            message = f"zip() argument {longer + 1} is longer than {earlier}"
        raise UserError("zip(strict=True)", message, exc_type=ValueError, exc_args=(message,))


def _named(codegen, inner: IteratorVariable) -> bool:
    """Whether ``inner``, or an iterator it takes its items from, was rebuilt already for a name."""
    return codegen.built(inner) or inner.wraps_a_named_iterator(codegen)


class EnumerateIterator(IteratorVariable):
    """``enumerate(it, start)``."""

    def __init__(self, inner: IteratorVariable, start: int = 0) -> None:
        self.inner = inner
        self.count = start

    def python_type(self) -> type:
        return enumerate

    def remaining(self) -> list[Variable] | None:
        items = self.inner.remaining()
        if items is None:
            return None
        return [TupleVariable([ConstantVariable(self.count + i), item]) for i, item in enumerate(items)]

    def wraps_a_named_iterator(self, codegen) -> bool:
        return _named(codegen, self.inner)

    def reconstruct_natively(self, codegen) -> None:
        codegen.call_const(enumerate, 2, lambda: (codegen.reconstruct(self.inner), codegen.load_const(self.count)))

    def live_position(self) -> tuple[Callable[..., None], int] | None:
        """A live iterable is enumerated live (:class:`~loom_symbolic.bytecode_helpers.LiveEnumerate`)."""
        inner = self.inner.live_position()
        if inner is None:
            return None
        push_inner, index = inner

        def push(codegen) -> None:
            codegen.load_callable(bytecode_helpers.LiveEnumerate)
            push_inner(codegen)
            codegen.load_const(self.count - index)  # the count of the iterable's first item
            codegen.call(2)

        return push, index

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        item = self.inner.next_item(tx)
        if item is None:
            return None
        self.count += 1
        return TupleVariable([ConstantVariable(self.count - 1), item])


class MapIterator(StopCarrying, IteratorVariable):
    """``map(fn, *iterables)``: ``fn`` is called lazily, item by item, like Python; a StopIteration it raises
    ends that step only (the next one calls it on the next items, as C's map does)."""

    def __init__(self, fn: Variable, inners: list[IteratorVariable]) -> None:
        self.fn = fn
        self.zipped = ZipIterator(inners)

    def python_type(self) -> type:
        return map

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        args = self.zipped.next_item(tx)
        if args is None:
            self.stopped, self.ended_by = None, self.zipped.ended_by
            return None
        return self.step_or_stop(lambda: self.fn.call(tx, args.items, {}))


class FilterIterator(StopCarrying, IteratorVariable):
    """``filter(fn, iterable)``; ``fn`` None keeps truthy items. A StopIteration the predicate raises ends
    that step only, as in C."""

    def __init__(self, fn: Variable | None, inner: IteratorVariable) -> None:
        self.fn = fn
        self.inner = inner

    def python_type(self) -> type:
        return filter

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        return self.step_or_stop(lambda: self._next_kept(tx))

    def _next_kept(self, tx: InstructionTranslator) -> Variable | None:
        while (item := self.inner.next_item(tx)) is not None:
            keep = item if self.fn is None else self.fn.call(tx, [item], {})
            if keep.truth(tx):
                return item
        self.ended_by = self.inner
        return None


def not_modelled_because(value: Variable) -> str:
    """Why ``next()`` on ``value`` is not modelled (its own reason, where it gives one)."""
    reason = getattr(value, "unmodelled_reason", None)
    return reason() if reason is not None else "not an iterator the translator models"


#: containers a class of the program may subclass, writing its own ``__iter__``
_SUBCLASSABLE = (ListVariable, DictVariable, SetVariable, TupleVariable)


def iterate(tx: InstructionTranslator, value: Variable) -> IteratorVariable:
    """``iter(value)``."""
    if isinstance(value, IteratorVariable):
        return value
    if (isinstance(value, _SUBCLASSABLE) and _overrides_iter(value.python_type())) \
            or constant_runs_python(value, "__iter__"):
        return iterate_user_object(tx, value, value.python_type())  # a subclass's (an enum's) own __iter__ decides
    if isinstance(value, ListVariable):
        return ListIterator(value)
    if isinstance(value, ConstantVariable) and isinstance(value.value, range):
        return RangeIterator(value.value)
    if isinstance(value, (DictVariable, SetVariable)):
        return DictIterator(value)
    custom = getattr(value, "iterate", None)
    if custom is not None:
        return custom(tx)
    if isinstance(value, ConstantVariable):
        _check_iterable(value.value)
    try:
        over_tuple = value.python_type() is tuple
    except Unsupported:
        over_tuple = False
    return SnapshotIterator(value.unpack(tx), over_tuple)


def _check_iterable(value: object) -> None:
    """The TypeError ``iter(value)`` raises for a constant that is not iterable, with CPython's own message
    (``'int' object is not iterable``, what every caller of ``PyObject_GetIter`` raises), so a handler that
    reads ``str(e)`` or ``e.args`` sees it. A caller that rewrites the message (``dict`` of pairs,
    ``functools.reduce``) rewrites it here too."""
    try:
        iter(value)
    except TypeError as exc:
        raise UserError("iteration", str(exc), exc_type=TypeError, exc_args=args_of(exc)) from exc


def each_item(tx: InstructionTranslator, iterable: Variable) -> Iterator[Variable]:
    """The items of ``iterable``, taken one at a time: a consumer that stores each as it comes keeps what
    it stored before an exception, as ``list.extend`` and ``dict.update`` do. A list or tuple is read whole
    first, as CPython does (``l.extend(l)`` doubles ``l``)."""
    if isinstance(iterable, SequenceVariable):
        yield from list(iterable.items)
        return
    iterator = iterate(tx, iterable)
    while (item := iterator.next_item(tx)) is not None:
        yield item


def iterated_items(tx: InstructionTranslator, value: Variable) -> list[Variable]:
    """``[*value]``, ``a, b = value``, ``f(*value)``: the items iteration gives (a list, dict, set or tuple
    subclass's own ``__iter__`` decides, not the members it holds)."""
    if isinstance(value, _SUBCLASSABLE) and _overrides_iter(value.python_type()):
        return iterate(tx, value).unpack(tx)
    return value.unpack(tx)


def _overrides_iter(cls: type) -> bool:
    """Whether a list, dict, set or tuple subclass defines its own ``__iter__`` in Python."""
    import types

    return isinstance(_attributes.class_attribute(cls, "__iter__"), types.FunctionType)


class UserIterator(StopCarrying, IteratorVariable):
    """An object whose class defines ``__next__`` in Python; StopIteration ends it, and the value it
    carries is what a ``yield from`` over the object evaluates to (PEP 380)."""

    def __init__(self, obj: Variable) -> None:
        self.obj = obj

    def python_type(self) -> type:
        return self.obj.python_type()

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        return self.step_or_stop(lambda: self.obj.call_method(tx, "__next__", [], {}))

    def describe(self) -> str:
        return f"a {self.obj.python_type().__name__} iterator"


def user_iterator_or_none(value: Variable) -> UserIterator | None:
    """``value`` as an iterator when its class writes ``__next__`` in Python (what ``next()`` calls)."""
    import types

    try:
        cls = _behaviour_class(value)
    except Unsupported:  # a value whose type the translator does not know: next() says why it stops
        return None
    if isinstance(_attributes.class_attribute(cls, "__next__"), types.FunctionType):
        return UserIterator(value)
    return None


def _behaviour_class(value: Variable) -> type:
    """The class whose methods ``value`` runs: a C class's stand-in (a deque iterator's) runs its own, in
    Python, while ``type()`` shows the C class."""
    return value.cls if getattr(value, "stands_for", None) is not None else value.python_type()


#: How ``iter(obj)`` goes on for a class without ``__iter__`` of its own: ``fn(tx, obj, cls)`` returning an
#: iterator, or None to pass (the old sequence protocol, filled by :mod:`.getitem_iteration`).
ITERATION_FALLBACKS: list[Callable[..., IteratorVariable | None]] = []


def iterate_user_object(tx: InstructionTranslator, obj: Variable, cls: type) -> IteratorVariable:
    """``iter(obj)`` for an instance of a class with ``__iter__`` written in Python."""
    import types

    if not isinstance(_attributes.class_attribute(cls, "__iter__"), types.FunctionType):
        for fallback in ITERATION_FALLBACKS:
            found = fallback(tx, obj, cls)
            if found is not None:
                return found
        raise Unsupported(f"iteration over {cls.__name__}", "its class defines no __iter__ in Python")
    result = obj.call_method(tx, "__iter__", [], {})
    if isinstance(result, IteratorVariable):
        return result
    if result is obj or isinstance(_attributes.class_attribute(_behaviour_class(result), "__next__"), types.FunctionType):
        return UserIterator(result)
    if not hasattr(result.python_type(), "__next__"):  # CPython checks what __iter__ returned
        message = f"iter() returned non-iterator of type '{result.python_type().__name__}'"
        raise UserError("iteration", message, exc_type=TypeError, exc_args=(message,))
    return iterate(tx, result)
