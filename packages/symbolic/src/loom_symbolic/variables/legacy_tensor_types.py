"""``torch.LongTensor(items)``: the legacy typed constructor on a list or tuple, recorded in the graph.

Eager converts each item to a Python int through ``__index__`` (so a 0-dim integer or bool tensor counts
as its value, and a float tensor raises), then builds an int64 CPU tensor. For items that are all such
0-dim CPU tensors the graph records ``torch.stack(items).to(torch.int64)``, the same values in new memory;
for items that are all Python ints, ``torch.tensor(items, dtype=torch.int64)``. A traced NumPy integer scalar
(an item of an int array) counts as its 0-dim tensor. Anything else (a size, a
float, a tensor of another kind, the other legacy types with their own conversions) is left to eager.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..errors import Unsupported
from .constant import ConstantVariable
from .new_objects import CONSTRUCTORS
from .sequences import ListVariable, TupleVariable, plain_sequence
from .tensor import TensorVariable

if TYPE_CHECKING:
    from ..translator import InstructionTranslator
    from .base import Variable

_INDEX_DTYPES = frozenset({torch.bool, torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64})


def _index_tensor(item: Variable) -> bool:
    """A plain 0-dim CPU tensor whose ``__index__`` eager would call (integer or bool dtype)."""
    if not isinstance(item, TensorVariable) or item.python_type() is not torch.Tensor:
        return False
    example = item.as_example()
    return example.dim() == 0 and example.dtype in _INDEX_DTYPES and example.device.type == "cpu"


def _numpy_scalar_tensor(item: Variable) -> Variable | None:
    """The 0-dim tensor holding a traced NumPy integer or bool scalar (``np.int64``), or None."""
    if getattr(item, "numpy_value", False) and getattr(item, "scalar", False) and _index_tensor(item.tensor):
        return item.tensor
    return None


def make_long_tensor(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``torch.LongTensor(items)`` for a list or tuple of index-like tensors or of Python ints."""
    items = args[0].items if len(args) == 1 and not kwargs and plain_sequence(args[0]) \
        else None
    if items:  # a NumPy integer scalar (``arr[0]``) is its 0-dim tensor: eager reads its ``__index__`` alike
        items = [_numpy_scalar_tensor(item) or item for item in items]
    if items and all(_index_tensor(item) for item in items):
        stacked = tx.output.call_function(tx, torch.stack, [TupleVariable(list(items))], {})
        return tx.output.call_method(tx, "to", [stacked, ConstantVariable(torch.int64)], {})
    if items and all(isinstance(item, ConstantVariable) and type(item.value) is int for item in items):
        values = ListVariable([ConstantVariable(item.value) for item in items])
        return tx.output.call_function(tx, torch.tensor, [values], {"dtype": ConstantVariable(torch.int64)})
    raise Unsupported("creating a LongTensor object", "only from a list of ints or of 0-dim integer tensors")


CONSTRUCTORS[torch.LongTensor] = make_long_tensor
