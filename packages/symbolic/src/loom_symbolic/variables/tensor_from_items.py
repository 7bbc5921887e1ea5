"""``torch.tensor([a, b, 2.5])`` where items are one-element tensors of the trace: a new tensor of their values.

Eager reads each tensor item as the Python number it holds (``item()``: any one-element tensor counts, a
``[[[456]]]`` too) and stores the numbers in a new tensor whose dtype ``torch.tensor`` infers from the items'
types (a tensor's dtype, ``int`` as int64, ``float`` as the default dtype, promoted together) unless ``dtype=``
says it. The graph records the same: each item made 0-dim and cast to that dtype, numbers as 0-dim tensors of
it, stacked into new memory; the dtype is torch's own answer for stand-ins of the items. A float dtype is
reached through float64, as eager's Python float is. Done for a flat list or tuple of plain CPU tensors (none
requiring grad: eager warns there) and numbers, with no argument but ``dtype``, which must be the inferred one
or a float dtype (a narrower integer dtype raises on overflow where a cast wraps; complex is not modelled);
otherwise the call is recorded as it is (and a tensor item breaks, its data unknown to the trace).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from .constant import ConstantVariable
from .sequences import TupleVariable, plain_sequence
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_NUMBERS = (bool, int, float)


def _stand_in(item: Variable) -> object:
    """A real value ``torch.tensor`` infers the same dtype from as the item, or None where it is not modelled."""
    if isinstance(item, TensorVariable):
        example = item.as_example()
        if item.python_type() is not torch.Tensor or example.numel() != 1 or example.device.type != "cpu" \
                or example.requires_grad:
            return None
        return torch.zeros((), dtype=example.dtype)
    if isinstance(item, ConstantVariable) and type(item.value) in _NUMBERS:
        return item.value
    return None


def tensor_of_items(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``torch.tensor(items[, dtype=...])`` over tensor items as a stack in the graph, or None (not this case)."""
    if len(args) != 1 or set(kwargs) - {"dtype"} or not plain_sequence(args[0]):
        return None
    items = args[0].items
    if not any(isinstance(item, TensorVariable) for item in items):
        return None
    stand_ins = [_stand_in(item) for item in items]
    dtype = kwargs.get("dtype", ConstantVariable(None))
    if any(s is None for s in stand_ins) or not dtype.is_python_constant():
        return None
    try:
        inferred = torch.tensor(stand_ins).dtype
    except Exception:  # a number out of every dtype's range: eager raises, left to it
        return None
    dtype = dtype.as_python_constant() or inferred
    if dtype.is_complex or (dtype != inferred and not dtype.is_floating_point):
        return None  # an integer dtype narrower than the items' raises on overflow, as a cast does not
    made = []
    for item in items:
        if isinstance(item, TensorVariable):
            value = tx.output.call_method(tx, "detach", [item], {})
            value = tx.output.call_method(tx, "reshape", [value, TupleVariable([])], {})
            if dtype.is_floating_point and item.as_example().dtype != torch.float64:
                # eager goes through the Python float the item holds: a double, then the dtype
                value = tx.output.call_method(tx, "to", [value, ConstantVariable(torch.float64)], {})
            made.append(tx.output.call_method(tx, "to", [value, ConstantVariable(dtype)], {}))
        else:
            made.append(tx.output.call_function(tx, torch.tensor, [item], {"dtype": ConstantVariable(dtype)}))
    return tx.output.call_function(tx, torch.stack, [TupleVariable(made)], {})
