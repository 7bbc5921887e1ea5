"""``==``, ``!=`` and ``|`` of two dicts while tracing, as CPython's dict answers them.

Two dicts are equal when they hold the same keys and each pair of values compares equal, identity first
(a tensor or an object without ``__eq__`` equals itself); two ``OrderedDict`` s also compare their order.
Without this, dicts holding anything but constants compared by identity (``{"a": x} == {"a": x}`` was
False). ``d | other`` of dicts whose classes keep ``dict.__or__`` is a new plain dict; where OrderedDict's
``__or__`` answers, its stand-in is traced (a subclass's ``__init__`` and ``__setitem__`` run, as in C).
"""

from __future__ import annotations

import collections
import operator
from typing import TYPE_CHECKING, Any

from .. import polyfills
from . import functions as _functions
from . import operator_semantics as _operators
from .attributes import class_attribute
from .base import Variable
from .constant import ConstantVariable
from .container_method_kit import values_equal
from .containers import DictVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _equal(tx: InstructionTranslator, left: DictVariable, right: DictVariable) -> bool:
    if len(left.items) != len(right.items):
        return False
    ordered = collections.OrderedDict
    if issubclass(left.python_type(), ordered) and issubclass(right.python_type(), ordered):
        if list(left.items) != list(right.items):
            return False
    for key, value in left.items.items():
        if key not in right.items or not values_equal(tx, value, right.items[key]):
            return False
    return True


def _plain_or(left: DictVariable, right: DictVariable) -> bool:
    """Whether ``left | right`` is ``dict.__or__`` (OrderedDict and defaultdict make their own kind)."""
    return class_attribute(left.python_type(), "__or__") is dict.__or__ and \
        class_attribute(right.python_type(), "__ror__") is dict.__ror__


def _ordered_or(left: DictVariable, right: DictVariable) -> bool:
    """Whether ``left | right`` runs OrderedDict's C ``__or__``: the left side keeps it (and the right side keeps a
    builtin ``__ror__``), or a right side deriving from the left's class brings it, asked first as a subclass."""
    ordered, lt, rt = collections.OrderedDict, left.python_type(), right.python_type()
    builtin_ror = class_attribute(rt, "__ror__") in (dict.__ror__, ordered.__ror__)
    if class_attribute(lt, "__or__") is ordered.__or__:
        return builtin_ror
    return class_attribute(lt, "__or__") is dict.__or__ and class_attribute(rt, "__ror__") is ordered.__ror__ \
        and issubclass(rt, lt)


def dict_operator(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``left == right``, ``left != right`` and ``left | right`` for two dicts (any subclass that does not
    compare in Python); None for anything else."""
    if not isinstance(left, DictVariable) or not isinstance(right, DictVariable) or left.read_only or right.read_only:
        return None
    if op in (operator.eq, operator.ne):
        name = f"__{op.__name__}__"
        order = (left, right)
        if left.python_type() is not right.python_type() and issubclass(right.python_type(), left.python_type()):
            order = (right, left)  # CPython asks a subclass's reflection first
        for receiver, other in (order, order[::-1]):
            if _operators.has_python_special(receiver, name):  # a dataclass's __eq__ (NotImplemented for a dict)
                result = receiver.call_method(tx, name, [other], {})
                if not (result.is_python_constant() and result.as_python_constant() is NotImplemented):
                    return result
            else:  # dict's own, in C: it compares any two dicts
                break
        else:  # both sides' Python methods declined: identity decides, as for any two objects
            return ConstantVariable(_operators.is_same(tx, left, right) == (op is operator.eq))
        return ConstantVariable(_equal(tx, left, right) == (op is operator.eq))
    if op is operator.or_ and _plain_or(left, right):
        return DictVariable({**left.items, **right.items})
    if op is operator.or_ and _ordered_or(left, right):
        return _functions.UserFunctionVariable(polyfills.collections.ordereddict_or).call(tx, [left, right], {})
    return None


_operators.CONTAINER_OPERATORS.append(dict_operator)
