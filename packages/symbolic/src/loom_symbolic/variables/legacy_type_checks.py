"""``isinstance(t, torch.FloatTensor)`` and the other legacy tensor types (``torch.tensortype`` instances).

These classes are not in any tensor's MRO: their metaclass's ``__instancecheck__`` answers True for a tensor
(of any subclass) whose dtype, device type and layout are the type's. The class of the tensor alone answers
False, so the answer is read off the tensor's example value, whose dtype, device and layout the tensor's guard
(or the ops that made it) fix.
"""

from __future__ import annotations

from typing import Any

import torch

from .base import Variable
from .tensor import TensorVariable

_LEGACY = type(torch.FloatTensor)  # torch.tensortype


def _matches(example: Any, cls: Any) -> bool:
    return (cls.dtype == example.dtype and bool(cls.is_cuda) == (example.device.type == "cuda")
            and bool(cls.is_sparse) == (example.layout == torch.sparse_coo))


def legacy_instance(value: Variable, classes: Any) -> bool | None:
    """True where ``value`` (a tensor) is an instance of one of ``classes`` through a legacy tensor type; None
    where none of ``classes`` is such a type (the caller then asks the tensor's class)."""
    if not isinstance(value, TensorVariable):
        return None
    legacy = [c for c in (classes if isinstance(classes, tuple) else (classes,)) if type(c) is _LEGACY]
    example = value.as_example() if legacy else None
    if not legacy or example is None:
        return None
    return any(_matches(example, cls) for cls in legacy) or None
