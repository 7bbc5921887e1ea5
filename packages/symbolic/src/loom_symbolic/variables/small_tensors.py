"""Shape arithmetic through small tensors: ``torch.tensor(x.shape).tolist()`` gives the sizes back.

A ``torch.tensor(data)`` made in the trace from Python numbers and sizes (constants, or symbolic ints
with dynamic shapes) is still a graph node, but its variable remembers the values it holds
(``TensorVariable.python_data``). ``.tolist()`` and ``.item()`` of it then answer from those values
instead of breaking the graph, as torch.compile folds them. Constant data is converted once by the
real ``torch.tensor`` with the call's arguments, so the numbers (a float32's rounding included) are
eager's; symbolic sizes are kept only for integer tensors of the default dtype.

The values are trusted only while nothing in the graph has written the tensor's memory (an in-place
op on it or on a view of it); after that, ``.tolist()`` breaks the graph as before.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from .base import Variable
from .constant import ConstantVariable
from .containers import ListVariable, SequenceVariable
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: Keyword arguments ``torch.tensor`` may get for the data to be remembered.
_KNOWN_KEYWORDS = frozenset({"dtype", "device", "requires_grad"})


def _leaves(value: Variable) -> Any:
    """``value`` as nested lists of constants and :class:`SymbolicVariable` s, or None."""
    if isinstance(value, SequenceVariable):
        items = [_leaves(item) for item in value.items]
        return None if any(item is None for item in items) else items
    if isinstance(value, SymbolicVariable):
        return value if value.example.__class__ is torch.SymInt else None
    if isinstance(value, ConstantVariable) and type(value.value) in (int, float, bool):
        return value.value
    return None


def _has_symbols(data: Any) -> bool:
    return isinstance(data, SymbolicVariable) or (isinstance(data, list) and any(_has_symbols(d) for d in data))


def remember_data(args: list[Variable], kwargs: dict[str, Variable], result: Variable) -> None:
    """After ``torch.tensor(*args, **kwargs)`` was recorded as ``result``: remember its values."""
    if len(args) != 1 or set(kwargs) - _KNOWN_KEYWORDS or not isinstance(result, TensorVariable):
        return
    if not all(v.is_python_constant() for v in kwargs.values()):
        return
    data = _leaves(args[0])
    if data is None:
        return
    options = {k: v.as_python_constant() for k, v in kwargs.items()}
    if _has_symbols(data):
        if result.example.dtype != torch.int64:
            return
        result.python_data = data
        return
    try:
        result.python_data = torch.tensor(data, **{**options, "device": "cpu", "requires_grad": False}).tolist()
    except Exception:  # eager raises too, and the recorded op already said so
        return


def _written(tx: InstructionTranslator, tensor: TensorVariable) -> bool:
    """Whether an in-place node of the graph writes the tensor's memory."""
    storage = tensor.example.untyped_storage()._cdata
    for node in tx.output.graph.nodes:
        if node.meta.get("mutates") and node.args and isinstance(node.args[0], torch.fx.Node):
            value = node.args[0].meta.get("val")
            if isinstance(value, torch.Tensor) and value.untyped_storage()._cdata == storage:
                return True
    return False


def _as_variable(data: Any) -> Variable:
    if isinstance(data, list):
        return ListVariable([_as_variable(d) for d in data])
    return data if isinstance(data, Variable) else ConstantVariable(data)


def read_data(tx: InstructionTranslator, tensor: TensorVariable, name: str) -> Variable | None:
    """``tensor.tolist()`` / ``tensor.item()`` / ``tensor.__index__()`` (a list subscripted by the tensor) from
    the remembered values, or None when they are not known."""
    data = getattr(tensor, "python_data", None)
    if data is None or _written(tx, tensor):
        return None
    if name == "tolist":
        return _as_variable(data)
    while isinstance(data, list) and len(data) == 1:
        data = data[0]
    if name == "__index__":
        # eager's __index__ takes one integer (or bool) element; a float tensor is its TypeError, left to eager
        integral = not (tensor.example.is_floating_point() or tensor.example.is_complex())
        return ConstantVariable(int(data)) if integral and type(data) in (int, bool) else None
    return None if isinstance(data, list) else _as_variable(data)
