"""``hash(a) == hash(b)`` (``!=``) of objects made while tracing that hash by identity, and of methods bound to
them (:class:`.object_ids.ObjectHashVariable`): CPython's ``object.__hash__`` is a one-to-one function of the
address, so two objects' hashes are equal exactly when they are the same object; a method's hash mixes its
object's and its function's, equal for the same function bound to the same object (two different pairs are
left to a graph break: their hashes could in principle collide)."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from . import operator_semantics as _operators
from .constant import ConstantVariable
from .methods import BoundMethodVariable
from .object_ids import ObjectHashVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _same_hash(tx: InstructionTranslator, a: Variable, b: Variable) -> bool | None:
    methods = [isinstance(v, BoundMethodVariable) for v in (a, b)]
    if all(methods):
        same = _operators.is_same(tx, a.receiver, b.receiver) and _operators.is_same(tx, a.function, b.function)
        return True if same else None
    if any(methods):
        return None
    return _operators.is_same(tx, a, b)


def _hash_equality(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    if op not in (operator.eq, operator.ne):
        return None
    if not (isinstance(left, ObjectHashVariable) and isinstance(right, ObjectHashVariable)):
        return None
    same = _same_hash(tx, left.hash_of, right.hash_of)
    return None if same is None else ConstantVariable(same == (op is operator.eq))


_operators.CONTAINER_OPERATORS.append(_hash_equality)
