"""The truth of a tensor whose element count is known while tracing not to be one (``if t:``, ``bool(t)``,
``not t``, ``y in [x]``, ``a < t < b``): eager's ``Tensor.__bool__`` raises a RuntimeError without reading a
value, so the trace raises it too, and a handler around it stays in the graph.

The count is known from static sizes (guarded by the tensor's shape guards, which a graph input carries and
an op's result derives from), or, for symbolic sizes, where their value ranges alone decide it (no guard is
added). A class that may answer otherwise (its own ``__bool__`` or ``__torch_function__``), an active
TorchFunctionMode (which eager hands ``__bool__``) and layouts other than strided are left to the break.
"""

from __future__ import annotations

from typing import Any

import torch

from ..errors import UserError

_PLAIN_TORCH_FUNCTIONS = (torch.Tensor.__torch_function__, torch._C._disabled_torch_function_impl)
#: eager's messages (aten's ``is_nonzero``)
_MANY = "Boolean value of Tensor with more than one value is ambiguous"
_NONE = "Boolean value of Tensor with no values is ambiguous"


def _plain(cls: type) -> bool:
    tf = getattr(cls, "__torch_function__", None)
    tf = getattr(tf, "__func__", tf)
    return cls.__bool__ is torch.Tensor.__bool__ and any(tf is p or getattr(p, "__func__", p) is tf
                                                         for p in _PLAIN_TORCH_FUNCTIONS)


def _known(condition: Any) -> bool:
    if isinstance(condition, bool):
        return condition
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    return statically_known_true(condition)


def ambiguous_truth(tx: Any, tensor: Any) -> UserError | None:
    """The error eager's ``bool(tensor)`` raises where the tensor's element count is known not to be one;
    None where the value would decide it, or where it is not known."""
    example = tensor.example
    if not isinstance(example, torch.Tensor) or example.layout is not torch.strided or example.is_nested:
        return None
    if not _plain(tensor.cls) or tx.output.function_modes or getattr(tensor, "hands_calls", False):
        return None
    numel = example.numel()
    if _known(numel == 0):
        message = _NONE
    elif _known(numel > 1):
        message = _MANY
    else:
        return None
    return UserError("the truth of a tensor without exactly one element", message, exc_type=RuntimeError,
                     exc_args=(message,))
