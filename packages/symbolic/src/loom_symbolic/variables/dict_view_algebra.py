"""Comparisons and set algebra of dict views whose items are not all constants: ``d.items() == e.items()`` of
dicts holding tensors or objects, ``d.items() <= e.items()``, ``d.items() & e.items()``, ``d.items() == s``.

:mod:`.dict_methods` answers these on real views when every value is a constant; here they follow CPython's
own steps with the views' members, so a value is compared as the C code compares it (identity first, then
its ``==``, which may raise) and at the same moments. A comparison (``dictview_richcompare``) needs the other
side to be a set or a keys/items view, checks the sizes first, then looks each member of one side up in the
other (an items view finds the key, then compares the stored value with ``==``), stopping at the first miss.
``|``, ``-`` and ``^`` build a set of the left side's members and update it with the right side; ``&`` walks
the smaller side and keeps what the other contains (a set at least as large intersects itself), as
``dictviews_and`` does. The members of the results are pairs holding tensors: :mod:`.tuple_keys` keys them.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from . import operator_semantics as _operators
from .constant import ConstantVariable
from .containers import SET_METHODS, SetVariable
from .dict_methods import DictViewVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_ALGEBRA = {operator.or_: "update", operator.sub: "difference_update", operator.xor: "symmetric_difference_update"}


def _set_like(value: Variable) -> bool:
    """A set (not one comparing in Python), or a keys or items view: what a dict view compares and combines with."""
    if isinstance(value, DictViewVariable):
        return value.kind in ("keys", "items")
    return isinstance(value, SetVariable)


def _size(value: Variable) -> int:
    return len(value.target.items) if isinstance(value, DictViewVariable) else len(value.values)


def _contains(tx: InstructionTranslator, container: Variable, item: Variable) -> bool:
    if isinstance(container, DictViewVariable):
        return bool(container.contains(tx, item).as_python_constant())
    return bool(SET_METHODS["__contains__"](tx, container, [item], {}).as_python_constant())


def _all_contained_in(tx: InstructionTranslator, inner: Variable, outer: Variable) -> bool:
    return all(_contains(tx, outer, item) for item in inner.unpack(tx))


def _compare(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> bool:
    """``dictview_richcompare``: the sizes decide first, then membership (a reflected call gives the same)."""
    ls, rs = _size(left), _size(right)
    if op in (operator.eq, operator.ne):
        same = ls == rs and _all_contained_in(tx, left, right)
        return same if op is operator.eq else not same
    if op in (operator.lt, operator.le):
        return (ls < rs if op is operator.lt else ls <= rs) and _all_contained_in(tx, left, right)
    return (ls > rs if op is operator.gt else ls >= rs) and _all_contained_in(tx, right, left)


def _new_set(tx: InstructionTranslator, value: Variable) -> SetVariable:
    """``set(value)``: a set's table copied, a view's members added in order."""
    if isinstance(value, SetVariable):
        return SetVariable.from_layout(value.layout.copy(), value)
    return SetVariable(value.unpack(tx), tx=tx)


def _intersection(tx: InstructionTranslator, left: Variable, right: Variable) -> Variable:
    """``dictviews_and``: the view first; a set at least as large intersects itself with it; else the
    smaller side is walked, keeping the members the larger view contains."""
    view, other = (left, right) if isinstance(left, DictViewVariable) else (right, left)
    if isinstance(other, SetVariable) and other.python_type() is set and _size(view) <= _size(other):
        return SET_METHODS["intersection"](tx, other, [view], {})
    if isinstance(other, DictViewVariable) and _size(other) > _size(view):
        view, other = other, view
    result = SetVariable([], tx=tx)
    for item in other.unpack(tx):
        if _contains(tx, view, item):
            result.add(item, tx)
    return result


def view_algebra(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``left op right`` where one side is a dict view the real-view path could not answer; None to pass."""
    if not (isinstance(left, DictViewVariable) or isinstance(right, DictViewVariable)):
        return None
    if not (_set_like(left) and _set_like(right)):
        return None  # a values view, or a list: the C code answers NotImplemented (or a TypeError), as modelled elsewhere
    for side in (left, right):
        if isinstance(side, SetVariable) and any(_operators.has_python_special(side, f"__{n}__")
                                                 for n in ("eq", "ne", "lt", "le", "gt", "ge", "or", "and", "sub", "xor")):
            return None
    op = _operators.INPLACE.get(op, op)
    if op in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
        return ConstantVariable(_compare(tx, op, left, right))
    if op is operator.and_:
        return _intersection(tx, left, right)
    method = _ALGEBRA.get(op)
    if method is None:
        return None
    result = _new_set(tx, left)
    SET_METHODS[method](tx, result, [right], {})
    return result


_operators.CONTAINER_OPERATORS.append(view_algebra)
