"""``torch._C._group_tensors_by_device_and_dtype(tensorlistlist, with_indices)``, answered while tracing.

``clip_grad_norm_``, ``clip_grad_value_``, ``get_total_norm`` and the foreach paths group their tensors with
it (through ``torch.utils._foreach_utils``). It returns a dict, which no graph node can: it was a graph
break. The grouping reads only each tensor's device and dtype, which the tensor guards fix, so the trace
computes it: the real function runs on empty stand-ins of the first list's tensors (same device and dtype,
with indices), which gives eager's keys in eager's order (its C++ map's, not insertion order) and which
positions each group holds; the answer is a dict made in the trace whose lists hold the program's own
tensors (and ``None``s) at those positions. Arguments it cannot see whole (a list known only at run time,
a ``None`` or a non-tensor in the first list, which the C function rejects) are a graph break.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .base import RealValueVariable, Variable
from .constant import ConstantVariable
from .mappings import DictVariable
from .sequences import ListVariable, TupleVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_GROUP = torch._C._group_tensors_by_device_and_dtype


def _refuse(why: str) -> Unsupported:
    return Unsupported("torch._C._group_tensors_by_device_and_dtype", why)


def _arguments(args: list[Variable], kwargs: dict[str, Variable]) -> tuple[list[list[Variable]], bool]:
    names = ("tensorlistlist", "with_indices")
    if len(args) > 2 or set(kwargs) - set(names[len(args):]):
        raise _refuse("called with arguments it does not take")
    bound = dict(zip(names, args), **kwargs)
    if "tensorlistlist" not in bound:
        raise _refuse("called without its tensor lists")
    flag = bound.get("with_indices", ConstantVariable(False))
    if not flag.is_python_constant() or not isinstance(flag.as_python_constant(), bool):
        raise _refuse("with_indices known only at run time")
    outer = bound["tensorlistlist"]
    if not isinstance(outer, (ListVariable, TupleVariable)) or not all(
            isinstance(inner, (ListVariable, TupleVariable)) for inner in outer.items):
        raise _refuse("tensor lists the trace does not hold item by item")
    lists = [list(inner.items) for inner in outer.items]
    if not lists or not lists[0] or not all(isinstance(t, TensorVariable) for t in lists[0]):
        raise _refuse("an empty first list, or one holding a non-tensor (the C function raises)")
    size = len(lists[0])
    for inner in lists[1:]:
        if len(inner) not in (0, size) or not all(
                isinstance(t, TensorVariable) or (t.is_python_constant() and t.as_python_constant() is None)
                for t in inner):
            raise _refuse("a later list of another length, or holding a non-tensor")
    return lists, flag.as_python_constant()


def group_by_device_and_dtype(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """The grouping dict, made in the trace (see the module docstring)."""
    lists, with_indices = _arguments(args, kwargs)
    stand_ins = []
    for tensor in lists[0]:
        example = tensor.as_example()
        stand_ins.append(torch.empty(0, dtype=example.dtype, device=example.device))
    grouped = _GROUP([stand_ins], True)
    items = {}
    for key, (_, indices) in grouped.items():
        members = [ListVariable([inner[i] for i in indices] if inner else []) for inner in lists]
        positions = [ConstantVariable(i) for i in indices] if with_indices else []
        items[key] = TupleVariable([ListVariable(members), ListVariable(positions)])
    return DictVariable(items)


class GroupTensorsVariable(RealValueVariable):
    """``torch._C._group_tensors_by_device_and_dtype`` read by the trace: calls are answered while tracing."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return group_by_device_and_dtype(tx, args, kwargs)

    def describe(self) -> str:
        return "torch function _group_tensors_by_device_and_dtype"


#: The builtins the wrap rules (:mod:`.wrap_rules`) wrap with :class:`GroupTensorsVariable`.
FUNCTIONS: dict[Any, type] = {_GROUP: GroupTensorsVariable}
