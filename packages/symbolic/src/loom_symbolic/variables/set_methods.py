"""Methods of sets and frozensets while tracing, one small function each."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from . import iterators as _iterators
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .container_method_kit import NONE, table_filler
from .container_tables import IdentityKey
from .containers import (
    SET_METHODS,
    DictVariable,
    Method,
    SetVariable,
    key_variable,
)
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


set_method = table_filler(SET_METHODS)


def _set_mutator(fn: Method) -> Method:
    def method(tx, s, args, kwargs):
        s.mutated(tx)  # first: a failing update keeps what it added before the error
        return fn(tx, s, args, kwargs)

    method.__name__ = fn.__name__
    return method


@set_method("add")
@_set_mutator
def set_add(tx, s, args, kwargs):
    s.add(args[0], tx)
    return NONE


def _members_of(tx: InstructionTranslator, other: Variable) -> set | list:
    """What CPython's set operations read from ``other``: a set's own table (its layout: which member
    comes first depends on it), else the keys of its items in iteration order."""
    if isinstance(other, SetVariable):
        return other.layout
    return [DictVariable.key_of(i, tx) for i in other.unpack(tx)]


def _adopt(s: SetVariable, others: list[Variable]) -> None:
    """After a real operation changed ``s.layout``: members it gained take their variables from ``others``."""
    for key in s.layout:
        if key not in s.values:
            holder = next((o for o in others if isinstance(o, SetVariable) and key in o.values), None)
            s.values[key] = holder.values[key] if holder is not None else key_variable(key)
    for key in [k for k in s.values if k not in s.layout]:
        del s.values[key]


@set_method("update")
@_set_mutator
def set_update(tx, s, args, kwargs):
    for other in args:
        if isinstance(other, SetVariable):  # merged table to table, as CPython's set_merge does
            s.layout.update(other.layout)
            _adopt(s, [other])
            continue
        for item in _iterators.each_item(tx, other):  # one at a time: a failing iterator keeps the rest
            s.add(item, tx)
    return NONE


def lookup_key(tx: InstructionTranslator, item: Variable) -> Any:
    """The key ``in``, ``remove`` and ``discard`` look a set up by: ``item``'s own, or for an unhashable set of
    constants the frozenset of its members, as CPython retries a set key after its TypeError (``{"a"} in s``
    finds ``frozenset({"a"})``)."""
    if item.is_python_constant():
        value = item.as_python_constant()
        if isinstance(value, set) and type(value).__hash__ is None:
            return frozenset(value)
    elif isinstance(item, SetVariable) and not item.frozen and item.python_type().__hash__ is None and \
            not any(isinstance(k, IdentityKey) for k in item.layout):
        return frozenset(item.layout)  # a set subclass made in the trace, of constants
    return DictVariable.key_of(item, tx)


@set_method("discard")
@_set_mutator
def set_discard(tx, s, args, kwargs):
    s.discard_key(lookup_key(tx, args[0]))
    return NONE


@set_method("remove")
@_set_mutator
def set_remove(tx, s, args, kwargs):
    key = lookup_key(tx, args[0])
    if key not in s.values:
        if isinstance(key, frozenset) and args[0].is_python_constant():
            key = args[0].as_python_constant()  # CPython's KeyError holds the set it was given
        raise UserError("set.remove", f"KeyError: {key!r}", exc_type=KeyError, exc_args=(key,))
    s.discard_key(key)
    return NONE


@set_method("clear")
@_set_mutator
def set_clear(tx, s, args, kwargs):
    s.clear()
    return NONE


@set_method("__init__")
def set_init(tx, s, args, kwargs):
    if kwargs:
        message = "set() takes no keyword arguments"
        raise UserError("set()", message, exc_type=TypeError, exc_args=(message,))
    if len(args) > 1:
        message = f"{s.python_type().__name__} expected at most 1 argument, got {len(args)}"
        raise UserError("set()", message, exc_type=TypeError, exc_args=(message,))
    if s.values:
        set_clear(tx, s, [], {})  # set.__init__ empties the set first
    return set_update(tx, s, args, {})


@set_method("copy")
def set_copy(tx, s, args, kwargs):
    if s.frozen and s.python_type() is frozenset:
        return s  # frozenset.copy() is the frozenset itself
    return SetVariable.from_layout(s.layout.copy(), s, frozen=s.frozen)


@set_method("pop")
def set_pop(tx, s, args, kwargs):
    if args or kwargs:
        raise UserError("set.pop", "set.pop() takes no arguments", exc_type=TypeError)
    if s.source is not None:
        # which member comes first depends on the real set's table, which the trace only mirrors for
        # sets it made itself
        raise Unsupported("set.pop() of a set from outside the compiled function", "its memory layout is not known")
    if not s.values:
        raise UserError("set.pop", "pop from an empty set", exc_type=KeyError, exc_args=("pop from an empty set",))
    s.mutated(tx)
    key = s.layout.pop()  # the very member CPython's pop takes: the layout went through the same history
    return s.values.pop(key)


def _set_update_in_place(name: str) -> Method:
    def update(tx, s, args, kwargs):
        getattr(s.layout, name)(*[_members_of(tx, a) for a in args])
        _adopt(s, args)
        return NONE

    update.__name__ = f"set_{name}"
    return _set_mutator(update)


for _name in ("difference_update", "symmetric_difference_update"):
    SET_METHODS[_name] = _set_update_in_place(_name)


@set_method("__contains__")
def set_contains(tx, s, args, kwargs):
    return ConstantVariable(lookup_key(tx, args[0]) in s.values)


def _set_algebra(name: str) -> Method:
    def algebra(tx, s, args, kwargs):
        result = getattr(s.layout, name)(*[_members_of(tx, a) for a in args])
        if not isinstance(result, set):
            return wrap_constant_like(result)
        return SetVariable.from_layout(result, s, *[a for a in args if isinstance(a, SetVariable)], frozen=s.frozen)

    algebra.__name__ = f"set_{name}"
    return algebra


for _name in ("union", "difference", "symmetric_difference"):
    SET_METHODS[_name] = _set_algebra(_name)


def _first_item_where(found: bool, name: str) -> Method:
    """``set.name(iterable)`` that stops at the first item whose membership in the set is ``found``, as
    CPython does for an iterable that is not a set: a generator runs no further than in eager."""
    whole = _set_algebra(name)

    def search(tx, s, args, kwargs):
        if len(args) != 1 or kwargs:
            return whole(tx, s, args, kwargs)  # the builtin's own argument error
        for item in _iterators.each_item(tx, args[0]):
            if (DictVariable.key_of(item, tx) in s.values) is found:
                return ConstantVariable(False)
        return ConstantVariable(True)

    search.__name__ = f"set_{name}"
    return search


#: ``isdisjoint`` is False at the first item in the set, ``issuperset`` at the first item not in it
#: (``union``, ``difference`` and ``symmetric_difference`` read their arguments whole, in CPython too).
SET_METHODS["isdisjoint"] = _first_item_where(True, "isdisjoint")
SET_METHODS["issuperset"] = _first_item_where(False, "issuperset")


def _intersect(tx: InstructionTranslator, kept: set, other: Variable) -> set:
    """The keys of ``kept`` found in iterable ``other``, taking its items as CPython's intersection does:
    it stops as soon as every key of ``kept`` has been found (an empty ``kept`` reads ``other`` whole)."""
    found: set = set()
    for item in _iterators.each_item(tx, other):
        key = DictVariable.key_of(item, tx)
        if key in kept:
            found.add(key)
            if len(found) >= len(kept):
                break
    return found


def _intersection(tx: InstructionTranslator, s: SetVariable, args: list[Variable]) -> set:
    """``s.intersection(*args)`` as a real set of keys laid out as CPython's result is: a set argument is
    intersected table to table, any other iterable is read item by item."""
    kept = s.layout
    for other in args:  # one argument after the other, each against what is left
        kept = kept.intersection(other.layout) if isinstance(other, SetVariable) else _intersect(tx, kept, other)
    return kept.copy() if kept is s.layout else kept


@set_method("intersection")
def set_intersection(tx, s, args, kwargs):
    kept = _intersection(tx, s, args)
    return SetVariable.from_layout(kept, s, *[a for a in args if isinstance(a, SetVariable)], frozen=s.frozen)


@set_method("intersection_update")
@_set_mutator
def set_intersection_update(tx, s, args, kwargs):
    s.layout = _intersection(tx, s, args)  # CPython swaps in the new table too
    _adopt(s, [])
    return NONE


def _issubset_intersects() -> bool:
    """Whether this CPython's ``set.issubset`` of an iterable that is not a set intersects it, stopping
    once every member was found (3.12 and later), rather than reading it whole into a set first (3.11)."""
    taken = []

    def items():
        for i in (0, 1):
            taken.append(i)
            yield i

    {0}.issubset(items())
    return len(taken) == 1


_ISSUBSET_INTERSECTS = _issubset_intersects()


@set_method("issubset")
def set_issubset(tx, s, args, kwargs):
    if len(args) != 1 or kwargs or not _ISSUBSET_INTERSECTS:
        return _set_algebra("issubset")(tx, s, args, kwargs)
    kept = set(s.values)
    return ConstantVariable(len(_intersect(tx, kept, args[0])) == len(kept))


#: Set operators and the method each one is (``a | b`` is ``a.union(b)`` for two sets, in CPython too).
_OPERATOR_METHODS = {operator.or_: "union", operator.and_: "intersection", operator.sub: "difference",
                     operator.xor: "symmetric_difference"}


#: Comparisons of two sets (``<`` a proper subset...), with the special methods Python tries for each.
_COMPARISONS = {operator.eq: ("__eq__", "__eq__"), operator.ne: ("__ne__", "__ne__"), operator.lt: ("__lt__", "__gt__"),
                operator.le: ("__le__", "__ge__"), operator.gt: ("__gt__", "__lt__"), operator.ge: ("__ge__", "__le__")}


def set_operator(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``left op right`` for two sets: through the method, so the result keeps CPython's table; a comparison
    compares members, whatever set or frozenset subclass either side is (unless one compares in Python)."""
    if op in _COMPARISONS and isinstance(left, SetVariable) and isinstance(right, SetVariable):
        own, reflected = _COMPARISONS[op]
        if _operators.has_python_special(left, own) or _operators.has_python_special(right, reflected):
            return None
        return ConstantVariable(op(left.values.keys(), right.values.keys()))
    name = _OPERATOR_METHODS.get(op)
    if name is None or not isinstance(left, SetVariable) or not isinstance(right, SetVariable):
        return None
    return SET_METHODS[name](tx, left, [right], {})


_operators.CONTAINER_OPERATORS.append(set_operator)
