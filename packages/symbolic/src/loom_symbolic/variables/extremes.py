"""``min()`` and ``max()`` without ``key`` or ``default`` (those go to the Python stand-in in
``polyfills/builtins.py``): constants are folded, and ints mixed with symbolic sizes stay symbolic.

``min(n, 2)`` over a SymInt ``n`` used to fold, which fixed ``n`` (a guard, so a recompile for every new
size); ``torch.sym_min``/``sym_max`` keep it symbolic and give eager's value (an int, equal whichever of
equal items eager picks). A mix with floats or bools is left to folding (which of ``1`` and ``1.0`` eager
returns depends on the values), and tensors among the items compare tensor values in Python: eager's
answer is one of the items, a tensor or a number depending on the data, which no graph can give, except
where the items are alike one-element tensors made in the trace that nothing reaches after the call: then a
``where`` per item is eager's pick in value, type and gradient, and nothing can tell it is a new tensor.
"""

from __future__ import annotations

import builtins
import operator
from typing import Any

import torch

from ..errors import Unsupported, UserError
from . import operator_semantics as ops
from .base import Variable
from .body_escapes import still_reachable
from .builtins import HANDLERS, Handler, _fold_call, _items
from .constant import ConstantVariable
from .containers import TupleVariable
from .operand_dispatch import constant_runs_python
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


def _interchangeable(tx: Any, items: list[Variable]) -> bool:
    """Whether eager's pick among ``items`` can be a new tensor equal to it: one-element tensors made in
    the trace, alike in shape, dtype, device and ``requires_grad`` (so a ``where`` over them has the
    picked one's value, type and gradient), none of them with attributes of the program's, and none
    reachable once the call has taken them: nothing can then tell the pick from a copy of it (``is``, an
    in-place change seen through the other name, a dict keyed by it)."""
    first = items[0].example if isinstance(items[0], TensorVariable) else None
    if first is None or tx.output.function_modes:
        return False
    for item in items:
        if type(item) is not TensorVariable or item.cls is not torch.Tensor or item.source is not None:
            return False
        if item.real is not None or item.made_leaf is not None or item.frozen_from is not None:
            return False
        t = item.example
        if (t.shape, t.dtype, t.device, t.requires_grad, t.layout) != (
                first.shape, first.dtype, first.device, first.requires_grad, torch.strided):
            return False
        if isinstance(t.numel(), torch.SymInt) or t.numel() != 1:
            return False  # more than one value: eager's bool() raises (left to the break)
        if tx.output.side_effects.attr_overlay.get(id(t)):
            return False
    return not still_reachable(tx, [item.node for item in items])


def _pick_tensor(tx: Any, pick: Any, items: list[Variable]) -> Variable | None:
    """``min(a, b, ...)``/``max(...)`` of tensors: eager keeps the first item and takes each later one that
    compares below (above) it, so ``where(item < kept, item, kept)`` per item gives its value, and its
    whole gradient to the item picked (unlike ``torch.minimum`` at ties). Only where the pick's identity
    cannot matter (:func:`_interchangeable`); None otherwise (a graph break)."""
    if all(item is items[0] or getattr(item, "node", None) is items[0].node for item in items):
        return items[0]  # one tensor: eager's answer is that very object
    if not _interchangeable(tx, items):
        return None
    compare = torch.lt if pick is builtins.min else torch.gt
    kept = items[0]
    for item in items[1:]:
        taken = tx.output.call_function(tx, compare, [item, kept], {})
        kept = tx.output.call_function(tx, torch.where, [taken, item, kept], {})
    return kept


def _traced_pick(tx: Any, pick: Any, items: list[Variable]) -> Variable:
    """``min``/``max`` of items some of which compare through a Python ``__lt__``/``__gt__`` (an enum's own):
    CPython keeps the first item and takes each later one that compares below (above) it, each comparison
    traced here as the operator is."""
    compare = operator.lt if pick is builtins.min else operator.gt
    kept = items[0]
    for item in items[1:]:
        if ops.binary(tx, compare, item, kept).truth(tx):
            kept = item
    return kept


def _reduce_extreme(pick: Any) -> Handler:
    def handler(tx, args, kwargs):
        if kwargs:
            return None
        items = _items(tx, args[0]) if len(args) == 1 else list(args)
        if not items:
            message = _EMPTY[pick]
            raise UserError(f"{pick.__name__}()", message, exc_type=ValueError, exc_args=(message,))
        if any(constant_runs_python(i, "__lt__", "__gt__") for i in items):
            return _traced_pick(tx, pick, items)
        if all(i.is_python_constant() for i in items):
            return _fold_call(pick, [TupleVariable(items)], {})
        if _symbolic_ints(items):
            result = items[0]
            for item in items[1:]:
                result = tx.output.call_function(tx, _SYMBOLIC_PICK[pick], [result, item], {})
            return result
        if any(isinstance(i, TensorVariable) for i in items):
            picked = _pick_tensor(tx, pick, items)
            if picked is not None:
                return picked
            raise Unsupported(f"{pick.__name__}() of tensors", "compares tensor values in Python",
                              hint=f"use torch.{'maximum' if pick is max else 'minimum'} instead")
        return None

    return handler


HANDLERS[max] = _reduce_extreme(max)
HANDLERS[min] = _reduce_extreme(min)
