"""Layout-changing copies, which ATen does better than a generated loop (measured; docs/backends-c.md).

A kernel that only copies a buffer into another layout (a transpose made contiguous, a permute) reads
its source with a large stride along the flat loop: one cache line per element. ATen's ``copy_`` walks
such copies in cache-friendly tiles; the generated loop was 2.5x slower at 512x512 and 10x slower at
2048x1024 (1 thread). From :data:`MIN_ELEMENTS` elements on (set between the two measurements) such a kernel becomes ``dst.copy_(strided view of src)``
in the host code; below it the kernel wins (0.36x ATen's time at 64x64: no dispatch).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import sympy

from ..kernels import symbols
from ..kernels.ir import ComputedBuffer, PointwiseLoops
from ..kernels.ops import record
from ..kernels.scheduler import FusedKernel

MIN_ELEMENTS = 65536


@dataclass
class LayoutCopy:
    """``dst.copy_(reinterpret(src, size, stride, offset))``, where a kernel would have copied."""

    src: str
    dst: str
    size: tuple[Any, ...]
    stride: tuple[Any, ...]
    offset: Any
    args: list[str]  # [src, dst], as a kernel source's
    outputs: list[str]
    kind: str = "aten_copy"


def layout_copy(kernel: FusedKernel, buffers: dict[str, Any]) -> LayoutCopy | None:
    """The copy ``kernel`` is, when it is nothing but a layout change ATen does faster; else None."""
    if kernel.is_reduction or len(kernel.nodes) != 1:
        return None
    node: ComputedBuffer = kernel.nodes[0]
    if not isinstance(node.loops, PointwiseLoops) or node.name not in kernel.stores:
        return None
    numel = symbols.static_int(kernel.xnumel)
    if numel is None or numel < MIN_ELEMENTS:
        return None
    coords = [sympy.Symbol(f"c{d}", integer=True, nonnegative=True) for d in range(len(node.layout.size))]
    recorder = record(node.loops.fn, coords)
    if len(recorder.reads) != 1 or recorder.opcount != 1 or recorder.indirect:
        return None
    (src, index), = recorder.reads
    source = buffers.get(src)
    if source is None or source.dtype != node.dtype or source.device != node.device:
        return None
    index = sympy.expand(symbols.as_expr(index))
    if index.atoms(sympy.Function) or not index.is_polynomial(*coords):
        return None
    strides = [index.coeff(c) for c in coords]
    offset = index.subs({c: 0 for c in coords})
    if any(s.free_symbols & set(coords) for s in strides):
        return None
    if tuple(strides) == tuple(node.layout.stride):  # the same layout: a plain copy, no transposition
        return None
    return LayoutCopy(src, node.name, tuple(node.layout.size), tuple(strides), offset, [src, node.name], [node.name])
