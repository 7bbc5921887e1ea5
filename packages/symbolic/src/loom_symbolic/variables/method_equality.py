"""``a.f == b.g`` for two methods the trace holds (``obj.fwd == obj.fwd``, ``!=``): CPython's method comparison,
``a.__self__ is b.__self__ and a.__func__ == b.__func__``, where the functions are Python functions (which
compare by identity). A function of another kind (a callable object with an ``__eq__`` of its own) is left to
the other rules (a graph break). A method compared with a plain function is unequal (identity decides), and so is a function made in the frame
compared with one made before it."""

from __future__ import annotations

import operator
import types
from typing import TYPE_CHECKING

from ..errors import UserError
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .methods import BoundMethodVariable
from .nested_functions import NestedFunctionVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _plain_function(value: Variable) -> bool:
    return isinstance(_operators.real_object(value), types.FunctionType)


_ORDERINGS = {operator.lt: "<", operator.le: "<=", operator.gt: ">", operator.ge: ">="}


def _method_equality(tx: InstructionTranslator, op: object, left: Variable, right: Variable) -> Variable | None:
    if op in _ORDERINGS and all(isinstance(side, BoundMethodVariable) for side in (left, right)):
        message = f"'{_ORDERINGS[op]}' not supported between instances of 'method' and 'method'"
        raise UserError(f"operator {_ORDERINGS[op]}", message, exc_type=TypeError, exc_args=(message,))
    if op not in (operator.eq, operator.ne):
        return None
    made = [isinstance(side, NestedFunctionVariable) for side in (left, right)]
    if any(made) and not all(made) and _plain_function(right if made[0] else left):
        return ConstantVariable(op is operator.ne)  # a function made in the frame is no function made before it
    methods = [isinstance(side, BoundMethodVariable) for side in (left, right)]
    if any(methods) and not all(methods):
        # a method and a plain function: neither compares them (NotImplemented both ways), so identity decides
        other = right if methods[0] else left
        return ConstantVariable(op is operator.ne) if _plain_function(other) else None
    if not all(methods) or not (_plain_function(left.function) and _plain_function(right.function)):
        return None
    same = _operators.is_same(tx, left.receiver, right.receiver) \
        and _operators.is_same(tx, left.function, right.function)
    return ConstantVariable(same == (op is operator.eq))


_operators.CONTAINER_OPERATORS.append(_method_equality)
