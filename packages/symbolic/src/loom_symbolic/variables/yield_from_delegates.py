"""What ``gen.throw()`` and ``gen.close()`` do to a subiterator that is not a generator, when the generator
is paused in a ``yield from`` over it (PEP 380, as CPython's ``_gen_throw`` and ``gen_close_iter`` do it).

``throw`` calls the subiterator's own ``throw`` method with the argument the caller handed in (what it
returns is what the delegating generator yields); one without such a method (a list's iterator) gets
nothing, and the exception is raised at the ``yield from`` instead. ``close``, ``throw(GeneratorExit)`` and
dropping the paused generator call its ``close`` method when it has one. The methods are looked up as
``getattr`` looks them up, when they are called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import Unsupported, UserError
from .exception_values import SymbolicException
from .iterators import (
    DictIterator,
    EnumerateIterator,
    FilterIterator,
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
        cls = exc.exc.cls if isinstance(exc, SymbolicException) else exc.exc_type
        if issubclass(cls, AttributeError):
            return None
        raise


def may_need_closing(receiver: Variable | None) -> bool:
    """Whether closing a generator paused on ``receiver`` (not a generator: those are closed on their own)
    may call a ``close`` method: any subiterator but the builtin ones, which have none."""
    return receiver is not None and not isinstance(receiver, BUILTIN_ITERATORS)


def throw_into(tx: InstructionTranslator, receiver: Variable, given: Variable) -> Variable | None:
    """``receiver.throw(given)``: the value the delegating generator yields; None when the subiterator has
    no ``throw`` (the caller raises the exception at its ``yield from``). What the method raises escapes as
    a SymbolicException, to be raised at the ``yield from``; its StopIteration (the ``yield from`` ending
    with a value) is not modelled."""
    method = method_of(tx, receiver, "throw")
    if method is None:
        return None
    try:
        return method.call(tx, [given], {})
    except SymbolicException as escaped:
        if issubclass(escaped.exc.python_type(), StopIteration):
            raise Unsupported("generator.throw() into a yield from", "the inner iterator's throw() stops it") from None
        raise


def close(tx: InstructionTranslator, receiver: Variable) -> None:
    """``receiver.close()`` when it has one; what it raises escapes (it replaces the GeneratorExit)."""
    method = method_of(tx, receiver, "close")
    if method is not None:
        method.call(tx, [], {})
