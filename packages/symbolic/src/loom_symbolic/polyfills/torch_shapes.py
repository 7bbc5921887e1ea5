"""``torch._shape_as_tensor(t)`` (what ``torch.onnx.operators.shape_as_tensor`` calls): the sizes of ``t`` as a
1-d int64 tensor. The C function reads them off the tensor's data pointer-free metadata, which a FakeTensor
refuses ("data is not allocated"); the stand-in makes the same tensor from ``t.shape``, as torch.compile records it."""

from __future__ import annotations

import torch

from .registry import polyfill


@polyfill(torch._shape_as_tensor)
def shape_as_tensor(t):
    """``torch._shape_as_tensor(t)``: ``torch.tensor(t.shape)`` (int64, on the CPU, as the original)."""
    return torch.tensor(tuple(t.shape), dtype=torch.int64)
