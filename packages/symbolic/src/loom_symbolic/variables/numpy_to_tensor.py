"""Tensors made from an ndarray of the trace: ``torch.from_numpy(array)``, ``torch.as_tensor``/``torch.asarray``
(the array's tensor, sharing its memory) and ``torch.tensor(array)`` (a copy, of the array's dtype unless
``dtype=`` says otherwise)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from .numpy import NdarrayVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_TENSOR_FROM_ARRAY = {"from_numpy", "as_tensor", "asarray"}
#: the keywords of ``torch.tensor(array, ...)`` that ``torch.as_tensor`` takes alike (not ``requires_grad``:
#: a leaf the graph would make)
_TENSOR_COPY_KEYWORDS = frozenset({"dtype", "device"})


def torch_call(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``torch.from_numpy(array)`` and friends on a traced ndarray: a tensor sharing its memory; ``torch.tensor(array)``:
    a copy, of the array's dtype unless ``dtype=`` says otherwise. None: ``fn`` is not one of those."""
    name = getattr(fn, "__name__", "")
    if fn is torch.tensor and len(args) == 1 and isinstance(args[0], NdarrayVariable) \
            and set(kwargs) <= _TENSOR_COPY_KEYWORDS:
        tensor = tx.output.call_method(tx, "detach", [args[0].tensor], {})
        if kwargs:
            tensor = tx.output.call_function(tx, torch.as_tensor, [tensor], kwargs)
        return tx.output.call_method(tx, "clone", [tensor], {})  # torch.tensor always copies
    if name not in _TENSOR_FROM_ARRAY or getattr(torch, name, None) is not fn or not args \
            or not isinstance(args[0], NdarrayVariable):
        return None
    if len(args) != 1 or (kwargs and name == "from_numpy"):
        raise Unsupported(f"torch.{name}() of a NumPy array with these arguments", "not modelled")
    tensor = tx.output.call_method(tx, "detach", [args[0].tensor], {})
    if kwargs:
        return tx.output.call_function(tx, torch.as_tensor, [tensor], kwargs)
    return tensor

