"""What ``gen.send()``, ``gen.throw()`` and ``gen.close()`` do to a subiterator that is not a generator, when the generator
is paused in a ``yield from`` over it (PEP 380, as CPython's ``_gen_throw`` and ``gen_close_iter`` do it).

``send`` (of a value other than None) calls the subiterator's ``send`` method; ``throw`` calls its ``throw`` method with the argument the caller handed in (what it
returns is what the delegating generator yields); one without such a method (a list's iterator) gets
nothing, and the exception is raised at the ``yield from`` instead. ``close``, ``throw(GeneratorExit)`` and
dropping the paused generator call its ``close`` method when it has one. The methods are looked up as
``getattr`` looks them up, when they are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Unsupported, UserError
from .exception_values import SymbolicException, is_attribute_error, stop_iteration_value
from .iterators import (
    DictIterator,
    EnumerateIterator,
    FilterIterator,
    IteratorVariable,
    ListIterator,
    MapIterator,
    RangeIterator,
    SnapshotIterator,
    UserIterator,
    ZipIterator,
)

if TYPE_CHECKING:
    from ..translator import InstructionTranslator
    from .base import Variable

#: Iterators of builtin types the translator models: none has a ``throw`` or a ``close`` method.
BUILTIN_ITERATORS = (ListIterator, DictIterator, RangeIterator, SnapshotIterator, ZipIterator, EnumerateIterator,
                     MapIterator, FilterIterator)


def _target(receiver: Variable) -> Variable:
    """The object whose methods are called: a user iterator's object itself (the iterator only wraps it)."""
    return receiver.obj if isinstance(receiver, UserIterator) else receiver


def method_of(tx: InstructionTranslator, receiver: Variable, name: str) -> Variable | None:
    """The subiterator's ``throw``/``close``, read as ``getattr`` reads it (instance, class, ``__getattr__``);
    None when it has none (an AttributeError), as for every builtin iterator."""
    if isinstance(receiver, BUILTIN_ITERATORS):
        return None
    try:
        return _target(receiver).var_getattr(tx, name)
    except (UserError, SymbolicException) as exc:
        if is_attribute_error(exc):
            return None
        raise


def may_need_closing(receiver: Variable | None) -> bool:
    """Whether closing a generator paused on ``receiver`` (not a generator: those are closed on their own)
    may call a ``close`` method: an object whose class writes ``__next__`` in Python (the builtin iterators
    the translator models have none)."""
    return isinstance(receiver, UserIterator)


def throw_into(tx: InstructionTranslator, receiver: Variable, given: Variable) -> Variable | None:
    """``receiver.throw(given)``: the value the delegating generator yields; None when the subiterator has
    no ``throw`` (the caller raises the exception at its ``yield from``); an :class:`EndedDelegate` when it
    raised StopIteration. What else the method raises escapes as a SymbolicException, to be raised at the
    ``yield from``."""
    method = method_of(tx, receiver, "throw")
    if method is None:
        return None
    return _call_until_stopped(tx, receiver, method, given, "throw")


def send_into(tx: InstructionTranslator, receiver: Variable, value: Variable) -> Variable:
    """``receiver.send(value)`` for a value other than None (the caller's ``gen.send``): the item the
    delegating generator yields, an :class:`EndedDelegate` when it raised StopIteration. A subiterator with
    no ``send`` (CPython's AttributeError at the ``yield from``) is not modelled."""
    method = method_of(tx, receiver, "send")
    if method is None:
        raise Unsupported(f"generator.send() into a yield from over {receiver.describe()}",
                          "it has no send() to receive the value")
    return _call_until_stopped(tx, receiver, method, value, "send")


def _call_until_stopped(tx: InstructionTranslator, receiver: Variable, method: Variable, argument: Variable,
                        name: str) -> Variable:
    """``method(argument)`` (the subiterator's ``throw`` or ``send``): what it returns, an
    :class:`EndedDelegate` holding the value when it raised StopIteration."""
    try:
        return method.call(tx, [argument], {})
    except SymbolicException as escaped:
        if issubclass(escaped.exc.python_type(), StopIteration):
            return EndedDelegate(stop_iteration_value(escaped.exc, f"{receiver.describe()}'s {name}()"))
        raise


class EndedDelegate(IteratorVariable):
    """Put in place of a subiterator that ended while a throw() went through it (its ``throw`` raised
    StopIteration, or a generator returned): the delegating generator is resumed, and its SEND finds this
    ended, so the ``yield from`` evaluates to ``returned`` and the generator goes on, as CPython's
    ``_gen_throw`` sends the value on."""

    returned_now = True

    def __init__(self, returned: Variable) -> None:
        self.returned = returned

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        return None

    def describe(self) -> str:
        return "a subiterator that ended"


def close(tx: InstructionTranslator, receiver: Variable) -> None:
    """``receiver.close()`` when it has one; what it raises escapes (it replaces the GeneratorExit)."""
    method = method_of(tx, receiver, "close")
    if method is not None:
        method.call(tx, [], {})
