"""Comparisons of two cells the trace holds (``f.__closure__[0] < g.__closure__[0]``): CPython compares their
contents where both hold a value, and otherwise orders an empty cell before a full one (two empty cells equal)."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from . import operator_semantics as _operators
from .cells import CellVariable, RealCellBox
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)


def _cell_comparison(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    if op not in _COMPARISONS or not (isinstance(left, CellVariable) and isinstance(right, CellVariable)):
        return None
    if any(isinstance(side.box, RealCellBox) for side in (left, right)):
        return None  # a real cell's emptiness is not guarded
    contents = [side.box.contents for side in (left, right)]
    if all(c is not None for c in contents):
        return _operators.binary(tx, op, contents[0], contents[1])
    return ConstantVariable(op(int(contents[0] is not None), int(contents[1] is not None)))


_operators.CONTAINER_OPERATORS.append(_cell_comparison)
