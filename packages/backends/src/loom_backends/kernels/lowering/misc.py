"""Conversions and copies, constants and ``arange``, ``cat`` and padding, and gathers through indices.

All of these are pointwise in loom's IR: a copy loads and converts, a constant loads nothing, ``cat``
and ``constant_pad_nd`` load under masks, and the gathers (``embedding``, ``index_select``, ``gather``,
``index``) load an index and then the value it points at. None of them is stored unless a consumer needs
it stored.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import sympy
import torch

from .. import symbols
from ..context import Unsupported
from ..ir import Index, Pointwise, TensorValue, merge_origins
from ..ops import ops
from ..symbols import FloorDiv
from .common import (
    broadcast_shapes,
    check_dtype,
    check_tensors,
    current_op,
    dims,
    expand_loader,
    identity,
    is_size,
    sizevars,
)
from .registry import register_lowering

aten = torch.ops.aten


def _check_same_device(x: TensorValue, device: Any) -> None:
    if device is not None and torch.device(device) != x.device:
        raise Unsupported("copy to another device")


# ----------------------------------------------------------------------------------- copies, casts
@register_lowering(aten._to_copy.default)
def to_copy(x: TensorValue, *, dtype: torch.dtype | None = None, layout: Any = None, device: Any = None,
            pin_memory: Any = None, non_blocking: bool = False, memory_format: Any = None) -> Any:  # fmt: skip
    _check_same_device(x, device)
    if layout not in (None, torch.strided):
        raise Unsupported(f"layout {layout}")
    check_tensors(x)
    target = check_dtype(dtype or x.dtype)
    if target == x.dtype:
        return identity(x, name="to_copy")
    load = x.loader()
    return Pointwise(x.shape, target, x.device, lambda index: ops.convert(load(index), target), merge_origins(x.origins, ["to"]))


@register_lowering(torch.ops.prims.convert_element_type.default)
def convert_element_type(x: TensorValue, dtype: torch.dtype) -> Any:
    """``prims.convert_element_type``: a conversion (decompositions of size arithmetic produce it)."""
    return to_copy(x, dtype=dtype)


@register_lowering(aten.clone.default, aten.lift_fresh_copy.default)
def clone(x: TensorValue, *, memory_format: Any = None) -> Any:
    check_tensors(x)
    return identity(x)


@register_lowering(aten.copy.default)
def copy(dst: TensorValue, src: TensorValue, non_blocking: bool = False) -> Any:
    check_tensors(dst, src)
    shape = broadcast_shapes(dst.shape, src.shape)
    if tuple(shape) != tuple(dst.shape):
        raise Unsupported("copy source does not broadcast to the destination")
    load = expand_loader(src, dst.shape)
    return Pointwise(dst.shape, dst.dtype, dst.device, lambda index: ops.convert(load(index), dst.dtype), merge_origins(src.origins, ["copy"]))


# -------------------------------------------------------------------------------------- constants
def _fill_dtype(value: Any, dtype: torch.dtype | None) -> torch.dtype:
    if dtype is not None:
        return dtype
    if isinstance(value, bool):
        return torch.bool
    if isinstance(value, int):
        return torch.int64
    return torch.get_default_dtype()


def _constant(shape: Sequence[Any], value: Any, dtype: torch.dtype, device: Any) -> Pointwise:
    check_dtype(dtype)
    if not isinstance(value, (bool, int, float, sympy.Expr)):
        raise Unsupported("non-scalar fill value")
    shape_e = tuple(symbols.as_expr(s) for s in shape)
    return Pointwise(shape_e, dtype, torch.device(device or "cpu"), lambda index: ops.constant(value, dtype), (current_op(),))


@register_lowering(aten.full.default)
def full(size: Sequence[int], fill_value: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
         pin_memory: Any = None) -> Any:  # fmt: skip
    return _constant(size, fill_value, _fill_dtype(fill_value, dtype), device)


@register_lowering(aten.full_like.default)
def full_like(x: TensorValue, fill_value: Any, *, dtype: Any = None, layout: Any = None, device: Any = None,
              pin_memory: Any = None, memory_format: Any = None) -> Any:  # fmt: skip
    return _constant(x.shape, fill_value, dtype or x.dtype, device or x.device)


@register_lowering(aten.zeros.default, aten.ones.default)
def zeros_ones(size: Sequence[int], *, dtype: Any = None, layout: Any = None, device: Any = None,
               pin_memory: Any = None) -> Any:  # fmt: skip
    value = 1 if current_op() == "ones" else 0
    return _constant(size, value, dtype or torch.get_default_dtype(), device)


@register_lowering(aten.zeros_like.default, aten.ones_like.default)
def zeros_ones_like(x: TensorValue, *, dtype: Any = None, layout: Any = None, device: Any = None,
                    pin_memory: Any = None, memory_format: Any = None) -> Any:  # fmt: skip
    value = 1 if current_op() == "ones_like" else 0
    return _constant(x.shape, value, dtype or x.dtype, device or x.device)


@register_lowering(aten.fill.Scalar)
def fill(x: TensorValue, value: Any) -> Any:
    return _constant(x.shape, value, x.dtype, x.device)


@register_lowering(aten.scalar_tensor.default)
def scalar_tensor(s: Any, *, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    return _constant((), s, dtype or torch.get_default_dtype(), device)


@register_lowering(aten.arange.start_step, aten.arange.start, aten.arange.default)
def arange(*args: Any, dtype: Any = None, layout: Any = None, device: Any = None, pin_memory: Any = None) -> Any:
    start, end, step = (0, args[0], 1) if len(args) == 1 else (*args, 1)[:3]
    if any(is_size(v) for v in (start, end, step)):
        return _arange_symbolic(start, end, step, dtype, device)
    if not all(isinstance(v, (int, float)) for v in (start, end, step)) or step == 0:
        raise Unsupported("arange bounds")
    integral = all(isinstance(v, int) for v in (start, end, step))
    out = dtype or (torch.int64 if integral else torch.get_default_dtype())
    check_dtype(out)
    length = max(0, math.ceil((end - start) / step))

    def fn(index: Index) -> Any:
        if integral:  # an index expression: i * 1 + 0 simplifies to i before any code is written
            return ops.to_dtype(ops.index_expr(index[0] * step + start, torch.int64), out)
        value = ops.index_expr(index[0], torch.float64)
        if step != 1:  # no dead arithmetic in the kernel: a unit step and a zero start are not written out
            value = ops.mul(value, ops.constant(step, torch.float64))
        if start != 0:
            value = ops.add(value, ops.constant(start, torch.float64))
        return ops.to_dtype(value, out)

    return Pointwise((sympy.Integer(length),), out, torch.device(device or "cpu"), fn, ("arange",))


def _arange_symbolic(start: Any, end: Any, step: Any, dtype: Any, device: Any) -> Any:
    """``arange(start, end, step)`` with a symbolic bound: integers, a positive int step, ``start <= end``."""
    if not (isinstance(step, int) and step > 0 and isinstance(start, (int, sympy.Expr))):
        raise Unsupported("symbolic arange bounds")
    span = symbols.as_expr(end) - symbols.as_expr(start)
    if not sizevars().provably_nonnegative(span):
        raise Unsupported("arange whose length may be negative")
    length = span if step == 1 else FloorDiv(span + step - 1, step)
    out = dtype or torch.int64
    check_dtype(out)

    def fn(index: Index) -> Any:
        value = ops.index_expr(index[0] * step + symbols.as_expr(start), torch.int64)
        return ops.to_dtype(value, out)

    return Pointwise((sympy.expand(length),), out, torch.device(device or "cpu"), fn, ("arange",))


# ---------------------------------------------------------------------------------- cat, padding
def _in_range(i: Any, low: Any, high: Any) -> Any:
    """A bool value: ``low <= i < high`` for an index expression ``i`` (bounds may be symbolic sizes)."""
    v = ops.index_expr(i, torch.int64)
    lo, hi = (ops.constant(symbols.static_int(b) if symbols.static_int(b) is not None else b, torch.int64)
              for b in (low, high))  # fmt: skip
    return ops.logical_and(ops.ge(v, lo), ops.lt(v, hi))


@register_lowering(aten.constant_pad_nd.default)
def constant_pad_nd(x: TensorValue, pad: Sequence[int], value: Any = 0) -> Any:
    check_tensors(x)
    if not all(isinstance(p, int) for p in pad):
        raise Unsupported("symbolic padding")
    shape = list(x.shape)
    if len(pad) % 2 or len(pad) // 2 > len(shape):
        raise Unsupported("bad padding")
    lows = [0] * len(shape)
    for k in range(len(pad) // 2):
        d = len(shape) - 1 - k
        if symbols.static_int(shape[d]) is None and min(pad[2 * k], pad[2 * k + 1]) < 0:
            raise Unsupported("negative padding of a symbolic size")
        lows[d] = pad[2 * k]
        shape[d] += pad[2 * k] + pad[2 * k + 1]
    if any(symbols.static_int(s) is not None and symbols.static_int(s) < 0 for s in shape):
        raise Unsupported("negative padded size")
    sizes, load = x.shape, x.loader()
    dtype = x.dtype

    def fn(index: Index) -> Any:
        src = [i - low for i, low in zip(index, lows)]
        mask = None
        for d, (i, low) in enumerate(zip(index, lows)):
            if low == 0 and shape[d] == sizes[d]:
                continue
            cond = _in_range(i, low, low + sizes[d])
            mask = cond if mask is None else ops.logical_and(mask, cond)
        if mask is None:
            return load(src)
        return ops.masked(mask, lambda: load(src), value, dtype)

    shape_e = tuple(symbols.as_expr(s) for s in shape)
    return Pointwise(shape_e, dtype, x.device, fn, merge_origins(x.origins, ["pad"]))


@register_lowering(aten.cat.default)
def cat(tensors: Sequence[TensorValue], dim: int = 0) -> Any:
    parts = [t for t in tensors if not (t.ndim == 1 and t.shape[0] == 0)]  # legacy empty inputs
    if not parts:
        return tensors[0]
    if len(parts) > 16:
        raise Unsupported("cat of more than 16 tensors")
    device = check_tensors(*parts)
    dtype = parts[0].dtype
    for p in parts:
        if p.dtype != dtype:
            dtype = torch.promote_types(dtype, p.dtype)
    (d,) = dims(dim, parts[0].ndim)
    offsets: list[Any] = []
    total: Any = sympy.Integer(0)
    for p in parts:
        offsets.append(total)
        total = total + p.shape[d]
    shape = list(parts[0].shape)
    shape[d] = total
    loaders = [p.loader() for p in parts]

    def fn(index: Index) -> Any:
        result = None
        for k in reversed(range(len(parts))):
            local = [i - offsets[k] if j == d else i for j, i in enumerate(index)]
            load, part_dtype = loaders[k], parts[k].dtype

            def body(load: Any = load, local: Any = local, part_dtype: Any = part_dtype) -> Any:
                v = load(local)
                return ops.to_dtype(v, dtype) if part_dtype != dtype else v

            if result is None:  # the last part needs no test: everything else was taken before it
                result = ops.masked(_in_range(index[d], offsets[k], total), body, 0, dtype)
                continue
            inside = _in_range(index[d], offsets[k], offsets[k] + parts[k].shape[d])
            result = ops.where(inside, ops.masked(inside, body, 0, dtype), result)
        return result

    return Pointwise(tuple(shape), dtype, device, fn, merge_origins(*[p.origins for p in parts], ["cat"]))


@register_lowering(aten.slice_scatter.default)
def slice_scatter(x: TensorValue, src: TensorValue, dim: int = 0, start: Any = None, end: Any = None, step: int = 1) -> Any:
    """``x`` with ``src`` written over ``x[start:end]`` along ``dim``: a masked select, no scatter needed
    (the backward of a slice produces it; bounds may be symbolic sizes, as for ``slice``)."""
    from .views import _normalize_slice, _symbolic_slice

    device = check_tensors(x, src)
    if step != 1:
        raise Unsupported("slice_scatter with a step")
    (d,) = dims(dim, x.ndim)
    size = symbols.static_int(x.shape[d])
    if size is not None and all(v is None or isinstance(v, int) for v in (start, end)):
        begin, length = _normalize_slice(size, start, end, step)
    else:
        begin, length = _symbolic_slice(x.shape[d], start, end, step)
    load_x, load_s = x.loader(), src.loader()
    dtype = x.dtype

    def fn(index: Index) -> Any:
        inside = _in_range(index[d], begin, symbols.as_expr(begin) + length)
        local = [i - begin if j == d else i for j, i in enumerate(index)]

        def body() -> Any:
            v = load_s(local)
            return ops.to_dtype(v, dtype) if src.dtype != dtype else v

        return ops.where(inside, ops.masked(inside, body, 0, dtype), load_x(index))

    return Pointwise(x.shape, dtype, device, fn, merge_origins(x.origins, src.origins, ["slice_scatter"]))


# --------------------------------------------------------------------------------------- gathers
def _index_dtype_ok(index: TensorValue) -> None:
    if index.dtype not in (torch.int64, torch.int32):
        raise Unsupported(f"index tensor of dtype {index.dtype}")


@register_lowering(aten.embedding.default)
def embedding(weight: TensorValue, indices: TensorValue, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Any:  # fmt: skip
    device = check_tensors(weight, indices)
    _index_dtype_ok(indices)
    if weight.ndim != 2:
        raise Unsupported("embedding weight must be 2-d")
    rows = weight.shape[0]
    load_w, load_i = weight.loader(), indices.loader()

    def fn(index: Index) -> Any:
        row = ops.indirect_indexing(load_i(index[:-1]), rows, wrap_negative=False)
        return load_w([row, index[-1]])

    shape = (*indices.shape, weight.shape[1])
    return Pointwise(shape, weight.dtype, device, fn, merge_origins(weight.origins, indices.origins, ["embedding"]))


@register_lowering(aten.index_select.default)
def index_select(x: TensorValue, dim: int, index: TensorValue) -> Any:
    device = check_tensors(x, index)
    _index_dtype_ok(index)
    if index.ndim > 1:
        raise Unsupported("index_select with a multi-dim index")
    (d,) = dims(dim, x.ndim)
    load_x, load_i = x.loader(), index.loader()
    size = x.shape[d] if x.ndim else sympy.Integer(1)

    def fn(idx: Index) -> Any:
        if not x.ndim:
            return load_x([])
        pos = ops.indirect_indexing(load_i([idx[d]] if index.ndim else []), size, wrap_negative=False)
        return load_x([pos if j == d else i for j, i in enumerate(idx)])

    shape = list(x.shape)
    if x.ndim:
        shape[d] = index.shape[0] if index.ndim else sympy.Integer(1)
    return Pointwise(tuple(shape), x.dtype, device, fn, merge_origins(x.origins, index.origins, ["index_select"]))


@register_lowering(aten.gather.default)
def gather(x: TensorValue, dim: int, index: TensorValue, *, sparse_grad: bool = False) -> Any:
    device = check_tensors(x, index)
    _index_dtype_ok(index)
    if index.ndim != x.ndim or x.ndim == 0:
        raise Unsupported("gather with index of another rank")
    (d,) = dims(dim, x.ndim)
    load_x, load_i = x.loader(), index.loader()

    def fn(idx: Index) -> Any:
        pos = ops.indirect_indexing(load_i(idx), x.shape[d], wrap_negative=False, eager_error=RuntimeError)
        return load_x([pos if j == d else i for j, i in enumerate(idx)])

    return Pointwise(index.shape, x.dtype, device, fn, merge_origins(x.origins, index.origins, ["gather"]))


@register_lowering(aten.index.Tensor)
def index(x: TensorValue, indices: Sequence[TensorValue | None]) -> Any:
    used = [k for k, t in enumerate(indices) if t is not None]
    if len(used) != 1:
        raise Unsupported("index with several index tensors")
    (k,) = used
    idx = indices[k]
    assert idx is not None
    device = check_tensors(x, idx)
    _index_dtype_ok(idx)
    load_x, load_i = x.loader(), idx.loader()
    n = idx.ndim

    def fn(out: Index) -> Any:
        pos = ops.indirect_indexing(load_i(out[k : k + n]), x.shape[k])
        return load_x([*out[:k], pos, *out[k + n :]])

    shape = (*x.shape[:k], *idx.shape, *x.shape[k + 1 :])
    return Pointwise(shape, x.dtype, device, fn, merge_origins(x.origins, idx.origins, ["index"]))
