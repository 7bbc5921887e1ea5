"""Tensor helpers the generated host code of every code generator calls."""

from __future__ import annotations

import sys

import torch


def reinterpret(t: torch.Tensor, size: tuple[int, ...], stride: tuple[int, ...], offset: int) -> torch.Tensor:
    """A view of ``t``'s memory with the given layout, ``offset`` counted from ``t``'s first element."""
    return t.as_strided(size, stride, t.storage_offset() + offset)


def restride(t: torch.Tensor, stride: tuple[int, ...]) -> torch.Tensor:
    """``t`` with exactly ``stride`` (what the kernels were generated for): a view when only the strides
    of size-1 dims differ, otherwise a copy."""
    size = tuple(t.shape)
    if all(s == 1 or a == b for s, a, b in zip(size, t.stride(), stride)):
        return t.as_strided(size, stride, t.storage_offset())
    out = torch.empty_strided(size, stride, dtype=t.dtype, device=t.device)
    out.copy_(t)
    return out


def storage_shared(t: torch.Tensor) -> bool:
    """Whether anything but ``t`` holds ``t``'s memory: another tensor (a view, a tensor autograd saved,
    the caller's copy of a returned output) or a Python storage object (``x.untyped_storage()``).

    The storage's use count covers tensors, one reference per tensor plus the storage object made here;
    a storage object someone else holds is the one ``untyped_storage()`` returns (torch keeps one Python
    object per storage), so it shows in that object's reference count instead (ours and the argument's
    otherwise: the temporary and the argument)."""
    return sys.getrefcount(t.untyped_storage()) > 2 or torch._C._storage_Use_Count(t.untyped_storage()._cdata) > 2
