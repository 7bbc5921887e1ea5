"""``a.f == b.g`` for two methods the trace holds (``obj.fwd == obj.fwd``, ``!=``): CPython's method comparison,
``a.__self__ is b.__self__ and a.__func__ == b.__func__``, where the functions are Python functions (which
compare by identity). A function of another kind (a callable object with an ``__eq__`` of its own) is left to
the other rules (a graph break)."""

from __future__ import annotations

import operator
import types
from typing import TYPE_CHECKING

from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .methods import BoundMethodVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _plain_function(value: Variable) -> bool:
    return isinstance(_operators.real_object(value), types.FunctionType)


def _method_equality(tx: InstructionTranslator, op: object, left: Variable, right: Variable) -> Variable | None:
    if op not in (operator.eq, operator.ne):
        return None
    if not (isinstance(left, BoundMethodVariable) and isinstance(right, BoundMethodVariable)):
        return None
    if not (_plain_function(left.function) and _plain_function(right.function)):
        return None
    same = _operators.is_same(tx, left.receiver, right.receiver) \
        and _operators.is_same(tx, left.function, right.function)
    return ConstantVariable(same == (op is operator.eq))


_operators.CONTAINER_OPERATORS.append(_method_equality)
