"""``min()`` and ``max()`` without ``key`` or ``default`` (those go to the Python stand-in in
``polyfills/builtins.py``): constants are folded, and ints mixed with symbolic sizes stay symbolic.

``min(n, 2)`` over a SymInt ``n`` used to fold, which fixed ``n`` (a guard, so a recompile for every new
size); ``torch.sym_min``/``sym_max`` keep it symbolic and give eager's value (an int, equal whichever of
equal items eager picks). A mix with floats or bools is left to folding (which of ``1`` and ``1.0`` eager
returns depends on the values), and tensors among the items compare tensor values in Python: eager's
answer is one of the items, a tensor or a number depending on the data, which no graph can give.
"""

from __future__ import annotations

import builtins
from typing import Any

import torch

from ..errors import Unsupported, UserError
from .base import Variable
from .builtins import HANDLERS, Handler, _fold_call, _items
from .constant import ConstantVariable
from .containers import TupleVariable
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable


def _empty_message(pick: Any) -> str:
    """The running CPython's wording for an empty argument (it changed in 3.12)."""
    try:
        pick([])
    except ValueError as exc:
        return str(exc)
    return f"{pick.__name__}() arg is an empty sequence"


_EMPTY = {builtins.min: _empty_message(builtins.min), builtins.max: _empty_message(builtins.max)}
_SYMBOLIC_PICK = {builtins.min: torch.sym_min, builtins.max: torch.sym_max}


def _symbolic_ints(items: list[Variable]) -> bool:
    """Ints only (no bools), at least one of them a symbolic size."""
    symbolic = False
    for item in items:
        if isinstance(item, SymbolicVariable) and item.python_type() is int:
            symbolic = True
        elif not (isinstance(item, ConstantVariable) and type(item.value) is int):
            return False
    return symbolic


def _reduce_extreme(pick: Any) -> Handler:
    def handler(tx, args, kwargs):
        if kwargs:
            return None
        items = _items(tx, args[0]) if len(args) == 1 else list(args)
        if not items:
            message = _EMPTY[pick]
            raise UserError(f"{pick.__name__}()", message, exc_type=ValueError, exc_args=(message,))
        if all(i.is_python_constant() for i in items):
            return _fold_call(pick, [TupleVariable(items)], {})
        if _symbolic_ints(items):
            result = items[0]
            for item in items[1:]:
                result = tx.output.call_function(tx, _SYMBOLIC_PICK[pick], [result, item], {})
            return result
        if any(isinstance(i, TensorVariable) for i in items):
            raise Unsupported(f"{pick.__name__}() of tensors", "compares tensor values in Python",
                              hint=f"use torch.{'maximum' if pick is max else 'minimum'} instead")
        return None

    return handler


HANDLERS[max] = _reduce_extreme(max)
HANDLERS[min] = _reduce_extreme(min)
