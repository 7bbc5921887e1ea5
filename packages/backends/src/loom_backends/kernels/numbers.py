"""Scalar facts both code generators share: the dtype a value is held in inside a kernel, and how ATen
converts a Python integer to an integer dtype."""

from __future__ import annotations

from typing import Any

import torch


def register_dtype(dtype: torch.dtype) -> torch.dtype:
    """The dtype a value of ``dtype`` is held in inside a kernel (half types compute in float32)."""
    return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


def wrap_int(value: Any, dtype: torch.dtype) -> int:
    """``value`` converted to an integer ``dtype`` as ATen converts a scalar operand: modulo 2**bits
    (``uint8_tensor + (-1)`` adds 255, ``int8_tensor + 300`` adds 44)."""
    bits = torch.iinfo(dtype).bits
    v = int(value) % (1 << bits)
    return v - (1 << bits) if dtype.is_signed and v >= 1 << (bits - 1) else v
