"""loom's loop-level IR: buffers in memory, and lazy values computed from them.

- A :class:`Layout` says where a tensor's elements live: sizes, strides and an offset into a buffer.
- A :class:`Buffer` is memory the generated code allocates or receives: a graph input
  (:class:`InputBuffer`), a constant (:class:`ConstantBuffer`), the output of a kernel
  (:class:`ComputedBuffer`, whose ``loops`` say how each element is computed) or of an ATen call
  (:class:`ExternBuffer`).
- Lowering works on :class:`TensorValue` s: a :class:`BufferView` (a strided window on a buffer, which is
  how every view, permute, expand or slice of a buffer is represented: no copy) or a :class:`Pointwise`
  (a function from an index to a value, not yet stored anywhere: chains of pointwise ops compose these
  functions, which is what fuses them).
- ``loops``: :class:`PointwiseLoops` (one value per index) or :class:`ReductionLoops` (one value per
  kept index, reducing ``fn`` over the reduced dimensions).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import sympy
import torch

from . import symbols
from .ops import ops
from .symbols import Expr

Index = list[Expr]
Loader = Callable[[Index], Any]


@dataclass(frozen=True)
class Layout:
    size: tuple[Expr, ...]
    stride: tuple[Expr, ...]
    offset: Expr
    dtype: torch.dtype
    device: torch.device

    @staticmethod
    def contiguous(size: Sequence[Expr | int], dtype: torch.dtype, device: torch.device) -> Layout:
        size_e = tuple(symbols.as_expr(s) for s in size)
        return Layout(size_e, contiguous_strides(size_e), sympy.Integer(0), dtype, device)

    @staticmethod
    def of_tensor(t: torch.Tensor) -> Layout:
        return Layout(
            tuple(sympy.Integer(int(s)) for s in t.shape),
            tuple(sympy.Integer(int(s)) for s in t.stride()),
            sympy.Integer(0),
            t.dtype,
            t.device,
        )

    def index(self, idx: Sequence[Expr]) -> Expr:
        assert len(idx) == len(self.size), (idx, self.size)
        out = self.offset
        for i, stride, size in zip(idx, self.stride, self.size):
            if size != 1:
                out = out + stride * i
        return out

    @property
    def numel(self) -> Expr:
        return symbols.product(self.size)

    @property
    def itemsize(self) -> int:
        return _itemsize(self.dtype)

    def storage_numel(self) -> Expr:
        """Elements from the start of the buffer to one past the last one this layout touches."""
        if any(s == 0 for s in self.size):
            return sympy.Integer(0)
        return self.offset + sum(((s - 1) * st for s, st in zip(self.size, self.stride)), sympy.Integer(0)) + 1

    def is_contiguous(self) -> bool:
        return self.offset == 0 and all(
            s == 1 or st == want for s, st, want in zip(self.size, self.stride, contiguous_strides(self.size))
        )

    def is_dense(self) -> bool:
        """Every element of the storage span is one element of the tensor (no gaps, no overlaps)."""
        pairs = [(symbols.static_int(s), symbols.static_int(st)) for s, st in zip(self.size, self.stride) if s != 1]
        if any(s is None or st is None for s, st in pairs) or self.offset != 0:
            return False
        expected = 1
        for size, stride in sorted(pairs, key=lambda p: p[1]):  # type: ignore[arg-type, return-value]
            if stride != expected:
                return False
            expected *= size  # type: ignore[operator]
        return True

    def coordinates(self, address: Expr) -> list[Expr]:
        """The index whose element lives at ``address`` (a dense layout's inverse of :meth:`index`)."""
        return [sympy.Integer(0) if s == 1 else symbols.ModularIndexing(address, st, s) for s, st in zip(self.size, self.stride)]


def contiguous_strides(size: Sequence[Expr]) -> tuple[Expr, ...]:
    strides: list[Expr] = []
    acc: Expr = sympy.Integer(1)
    for s in reversed(size):
        strides.append(acc)
        static = symbols.static_int(s)
        acc = acc * (max(static, 1) if static is not None else s)
    return tuple(reversed(strides))


def _itemsize(dtype: torch.dtype) -> int:
    return torch.empty((), dtype=dtype).element_size()


# ---------------------------------------------------------------------------------------------- buffers


@dataclass(eq=False)
class Buffer:
    name: str
    layout: Layout

    @property
    def dtype(self) -> torch.dtype:
        return self.layout.dtype

    @property
    def device(self) -> torch.device:
        return self.layout.device

    def nbytes(self) -> Expr:
        return self.layout.storage_numel() * self.layout.itemsize


@dataclass(eq=False)
class InputBuffer(Buffer):
    position: int = 0


@dataclass(eq=False)
class ConstantBuffer(Buffer):
    value: torch.Tensor | None = None


@dataclass(eq=False)
class PointwiseLoops:
    ranges: tuple[Expr, ...]
    fn: Loader


REDUCTION_TYPES = ("sum", "prod", "max", "min", "argmax", "argmin")


@dataclass(eq=False)
class ReductionLoops:
    """``fn`` reduced over the ``reduced`` dims of ``ranges`` with one of :data:`REDUCTION_TYPES`."""

    ranges: tuple[Expr, ...]  # the full shape that is reduced over
    reduced: tuple[int, ...]  # reduced dimensions of ``ranges``
    reduction_type: str
    fn: Loader  # full index -> value
    src_dtype: torch.dtype

    @property
    def kept(self) -> tuple[int, ...]:
        return tuple(d for d in range(len(self.ranges)) if d not in self.reduced)

    @property
    def rnumel(self) -> Expr:
        return symbols.product(self.ranges[d] for d in self.reduced)


@dataclass(eq=False)
class ComputedBuffer(Buffer):
    loops: PointwiseLoops | ReductionLoops | None = None
    origins: tuple[str, ...] = ()

    @property
    def is_reduction(self) -> bool:
        return isinstance(self.loops, ReductionLoops)


@dataclass(eq=False)
class ExternCall:
    """One call to an ATen op the backend does not lower (see ``fallbacks.py``)."""

    name: str
    op: Any  # torch._ops.OpOverload (or any callable)
    args: tuple[Any, ...]  # IR values (BufferView) in place of tensors
    kwargs: dict[str, Any]
    reason: str
    mutates: bool = False
    outputs: list[ExternBuffer] = field(default_factory=list)
    result_structure: Any = None  # the op's result with ExternBuffer / None / python values in place

    @property
    def op_name(self) -> str:
        return str(self.op)


@dataclass(eq=False)
class ExternBuffer(Buffer):
    call: ExternCall | None = None
    path: tuple[int, ...] = ()  # where in the call's (possibly nested) result this tensor is


# ----------------------------------------------------------------------------------------------- values


class TensorValue:
    """A tensor during lowering: has a shape, dtype and device, and can be loaded at an index."""

    shape: tuple[Expr, ...]
    dtype: torch.dtype
    device: torch.device

    def loader(self) -> Loader:
        raise NotImplementedError

    @property
    def origins(self) -> tuple[str, ...]:
        return ()

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def numel(self) -> Expr:
        return symbols.product(self.shape)


@dataclass(eq=False)
class BufferView(TensorValue):
    """A strided window onto a buffer: ``element[i] = buffer[offset + sum(stride * i)]``."""

    buffer: Buffer
    layout: Layout

    @property
    def shape(self) -> tuple[Expr, ...]:  # type: ignore[override]
        return self.layout.size

    @property
    def dtype(self) -> torch.dtype:  # type: ignore[override]
        return self.layout.dtype

    @property
    def device(self) -> torch.device:  # type: ignore[override]
        return self.layout.device

    def loader(self) -> Loader:
        name, layout = self.buffer.name, self.layout

        def load(index: Index) -> Any:
            return ops.load(name, layout.index(index))

        return load

    def is_whole_buffer(self) -> bool:
        return self.layout == self.buffer.layout


@dataclass(eq=False)
class Pointwise(TensorValue):
    """A lazily computed tensor: ``fn(index)`` computes the element at ``index`` (inlined into users)."""

    shape: tuple[Expr, ...]  # type: ignore[assignment]
    dtype: torch.dtype  # type: ignore[assignment]
    device: torch.device  # type: ignore[assignment]
    fn: Loader
    sources: tuple[str, ...] = ()  # the ATen ops composed into fn
    identity_of: BufferView | None = None  # set when fn only reads this view (a clone / copy)
    # Set on reshapes, permutes and expands of a lazy value: storing ``view_base`` and replaying the
    # view on the stored buffer (``view_replay(buffer_view)``) gives the same tensor without a copy.
    view_base: TensorValue | None = None
    view_replay: Callable[[BufferView], TensorValue] | None = None

    def loader(self) -> Loader:
        return self.fn

    @property
    def origins(self) -> tuple[str, ...]:
        return self.sources


def merge_origins(*groups: Sequence[str]) -> tuple[str, ...]:
    seen: dict[str, None] = {}
    for name in itertools.chain(*groups):
        seen.setdefault(name, None)
    return tuple(seen)

