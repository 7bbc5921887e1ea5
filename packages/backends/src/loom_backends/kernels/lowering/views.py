"""Views: reshapes, permutes, expands, squeezes, slices, selects ... folded into indexing, never copied.

On a stored buffer a view is a new :class:`~..ir.BufferView` (new sizes, strides and offset over the
same memory, as torch computes them). On a lazy value it is a new lazy value whose loop body reads the
old one at a remapped index (a reshape that merges dimensions becomes ``//`` and ``%`` on the index,
which the simplifier folds back when the layout allows).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Sequence
from typing import Any

import sympy
import torch

from .. import symbols
from ..context import Unsupported, current
from ..ir import BufferView, ComputedBuffer, Index, Layout, Pointwise, TensorValue, contiguous_strides
from ..symbols import FloorDiv, ModularIndexing
from .common import dims, sizevars, static_dim
from .registry import register_lowering

aten = torch.ops.aten


def _with_layout(x: BufferView, size: Sequence[Any], stride: Sequence[Any], offset: Any = None) -> BufferView:
    lay = x.layout
    new = Layout(
        tuple(symbols.as_expr(s) for s in size),
        tuple(symbols.as_expr(s) for s in stride),
        lay.offset if offset is None else symbols.as_expr(offset),
        lay.dtype,
        lay.device,
    )
    return BufferView(x.buffer, new)


def _remap(
    x: TensorValue,
    shape: Sequence[Any],
    old_index: Callable[[Index], Index],
    replay: Callable[[BufferView], TensorValue] | None = None,
) -> Pointwise:
    """A lazy value of ``shape`` whose element at ``index`` is ``x`` at ``old_index(index)``.

    ``replay`` (for views that cover all of ``x``) redoes the view on ``x`` once ``x`` is stored, so
    storing the result stores ``x`` and views it instead of copying.
    """
    load = x.loader()
    shape_e = tuple(symbols.as_expr(s) for s in shape)
    out = Pointwise(shape_e, x.dtype, x.device, lambda index: load(old_index(index)), x.origins)
    if replay is not None:
        out.view_base, out.view_replay = x, replay
    return out


# ------------------------------------------------------------------------------------------ reshapes
def view_strides(size: Sequence[int], stride: Sequence[int], new: Sequence[int]) -> list[int] | None:
    """Strides of ``new`` viewing a tensor of ``size``/``stride`` without a copy (torch's rule), or None."""
    numel = 1
    for s in size:
        numel *= s
    if numel == 0 or not size:
        return [int(s) for s in contiguous_strides([sympy.Integer(n) for n in new])]
    out = [0] * len(new)
    view_d = len(new) - 1
    chunk_base = stride[-1]
    tensor_numel = view_numel = 1
    for d in range(len(size) - 1, -1, -1):
        tensor_numel *= size[d]
        if d == 0 or (size[d - 1] != 1 and stride[d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or new[view_d] == 1):
                out[view_d] = view_numel * chunk_base
                view_numel *= new[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if d > 0:
                chunk_base = stride[d - 1]
                tensor_numel = view_numel = 1
    return out if view_d == -1 else None


def _infer_size(shape: Sequence[int], numel: int) -> list[int]:
    shape = list(shape)
    if -1 in shape:
        known = 1
        for s in shape:
            if s != -1:
                known *= s
        shape[shape.index(-1)] = numel // known if known else 0
    return shape


def _groups(old: Sequence[int], new: Sequence[int]) -> list[tuple[list[int], list[int]]]:
    """Match runs of old and new dims with equal products (size-1 dims join their neighbours)."""
    old_dims = [d for d, s in enumerate(old) if s != 1]
    new_dims = [d for d, s in enumerate(new) if s != 1]
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(old_dims) and j < len(new_dims):
        gi, gj = [old_dims[i]], [new_dims[j]]
        po, pn = old[old_dims[i]], new[new_dims[j]]
        i, j = i + 1, j + 1
        while po != pn:
            if po < pn:
                gi.append(old_dims[i])
                po *= old[old_dims[i]]
                i += 1
            else:
                gj.append(new_dims[j])
                pn *= new[new_dims[j]]
                j += 1
        groups.append((gi, gj))
    return groups


def reshape_view(x: TensorValue, shape: Sequence[Any]) -> TensorValue:
    """``x`` with a new shape: a strided view when the layout allows, otherwise index arithmetic."""
    static = [symbols.static_int(s) for s in x.shape]
    if None in static or not all(isinstance(s, int) for s in shape):
        return _reshape_symbolic(x, shape)
    old = tuple(static)  # type: ignore[arg-type]
    numel = 1
    for s in old:
        numel *= s
    new = _infer_size([int(s) for s in shape], numel)
    if list(old) == new:
        return x
    if isinstance(x, BufferView):
        strides = view_strides(old, [int(s) for s in x.layout.stride], new)
        if strides is not None:
            return _with_layout(x, new, strides)
    if numel == 0:
        return _remap(x, new, lambda index: [sympy.Integer(0)] * len(old))
    groups = _groups(old, new)

    def old_index(index: Index) -> Index:
        out: list[Any] = [sympy.Integer(0)] * len(old)
        for old_dims, new_dims in groups:
            flat: Any = sympy.Integer(0)
            for d in new_dims:
                flat = flat * new[d] + index[d]
            inner = 1
            for k in reversed(range(len(old_dims))):
                d = old_dims[k]
                out[d] = FloorDiv(flat, inner) if k == 0 else ModularIndexing(flat, inner, old[d])
                inner *= old[d]
        return out

    return _remap(x, new, old_index, lambda base: reshape_view(base, new))


# ------------------------------------------------------------------ reshapes over symbolic sizes
def _same(a: Any, b: Any) -> bool:
    return sympy.expand(symbols.as_expr(a) - symbols.as_expr(b)) == 0


def _divides(a: Any, b: Any) -> bool:
    """``a`` divides ``b`` for every value of the size symbols (``b / a`` is a polynomial)."""
    return sympy.fraction(sympy.cancel(symbols.as_expr(b) / symbols.as_expr(a)))[1] == 1


def _symbolic_groups(old: Sequence[Any], new: Sequence[Any]) -> list[tuple[list[int], list[int]]]:
    """:func:`_groups` for symbolic sizes: runs whose products are equal as expressions. When a run
    cannot be matched (``(s0, s1) -> (s1, s0)``), one group of every dim: always right, less simple."""
    old_dims = [d for d, s in enumerate(old) if s != 1]
    new_dims = [d for d, s in enumerate(new) if s != 1]
    whole = [(old_dims, new_dims)] if old_dims or new_dims else []
    groups: list[tuple[list[int], list[int]]] = []
    i = j = 0
    while i < len(old_dims) and j < len(new_dims):
        gi, gj = [old_dims[i]], [new_dims[j]]
        po, pn = old[old_dims[i]], new[new_dims[j]]
        i, j = i + 1, j + 1
        while not _same(po, pn):
            if i < len(old_dims) and _divides(po, pn):
                gi.append(old_dims[i])
                po = po * old[old_dims[i]]
                i += 1
            elif j < len(new_dims) and _divides(pn, po):
                gj.append(new_dims[j])
                pn = pn * new[new_dims[j]]
                j += 1
            else:
                return whole
        groups.append((gi, gj))
    return groups if i == len(old_dims) and j == len(new_dims) else whole


def _symbolic_view_strides(stride: Sequence[Any], old: Sequence[Any], new: Sequence[Any],
                           groups: list[tuple[list[int], list[int]]]) -> list[Any] | None:  # fmt: skip
    """Strides viewing ``old``/``stride`` as ``new`` (symbolic sizes), or None when a copy is needed."""
    out: list[Any] = [None] * len(new)
    for gi, gj in groups:
        for a, b in itertools.pairwise(gi):
            if not _same(stride[a], stride[b] * old[b]):
                return None  # the old dims of this run are not one block of memory
        acc = stride[gi[-1]] if gi else sympy.Integer(1)
        for d in reversed(gj):
            out[d] = acc
            acc = acc * new[d]
    for d in reversed(range(len(new))):  # size-1 dims: the stride a contiguous tensor would have there
        if out[d] is None:
            out[d] = out[d + 1] * new[d + 1] if d + 1 < len(new) else sympy.Integer(1)
    return out


def _reshape_symbolic(x: TensorValue, shape: Sequence[Any]) -> TensorValue:
    old = [symbols.as_expr(s) for s in x.shape]
    if any(s == 0 for s in old):
        raise Unsupported("reshape of an empty tensor with symbolic sizes")
    numel = symbols.product(old)
    new: list[Any] = [None if isinstance(s, int) and s == -1 else symbols.as_expr(s) for s in shape]
    if None in new:
        known = symbols.product(s for s in new if s is not None)
        if known == 0:
            raise Unsupported("reshape to an empty tensor with symbolic sizes")
        inferred = sympy.cancel(numel / known)
        if sympy.fraction(inferred)[1] != 1:
            raise Unsupported(f"cannot infer a size from {numel} / {known}")
        new = [inferred if s is None else s for s in new]
    if len(new) == len(old) and all(_same(a, b) for a, b in zip(old, new)):
        return x
    groups = _symbolic_groups(old, new)
    if isinstance(x, BufferView):
        strides = _symbolic_view_strides(x.layout.stride, old, new, groups)
        if strides is not None:
            return _with_layout(x, new, strides)

    def old_index(index: Index) -> Index:
        out: list[Any] = [sympy.Integer(0)] * len(old)
        for old_dims, new_dims in groups:
            flat: Any = sympy.Integer(0)
            for d in new_dims:
                flat = flat * new[d] + index[d]
            inner: Any = sympy.Integer(1)
            for k in reversed(range(len(old_dims))):
                d = old_dims[k]
                out[d] = FloorDiv(flat, inner) if k == 0 else ModularIndexing(flat, inner, old[d])
                inner = inner * old[d]
        return out

    return _remap(x, new, old_index, lambda base: reshape_view(base, new))


@register_lowering(aten.view.default, aten._unsafe_view.default, aten.reshape.default, aten.view_copy.default)
def view(x: TensorValue, shape: Sequence[int]) -> TensorValue:
    if any(isinstance(s, int) and s == -1 for s in shape) and any(symbols.static_int(s) is None for s in x.shape):
        shape = _meta_shape(shape)
    return reshape_view(x, shape)


def _meta_shape(shape: Sequence[Any]) -> Sequence[Any]:
    """``shape`` with its -1 replaced by the size torch inferred (the node's meta), when it has one:
    ``x.view(n, -1)`` of ``s0`` elements has ``s0 // s1`` columns, which a polynomial division misses."""
    node = current().current_node
    val = node.meta.get("val") if node is not None else None
    if not isinstance(val, torch.Tensor) or val.dim() != len(shape):
        return shape
    inferred = sizevars().try_expr(val.shape[list(shape).index(-1)])
    return shape if inferred is None else [inferred if isinstance(s, int) and s == -1 else s for s in shape]


@register_lowering(aten.view.dtype)
def view_dtype(x: TensorValue, dtype: torch.dtype) -> TensorValue:
    if dtype != x.dtype:
        raise Unsupported("bit-casting views")
    return x


@register_lowering(aten.alias.default, aten.detach.default, aten.lift_fresh.default)
def alias(x: TensorValue) -> TensorValue:
    return x


# ------------------------------------------------------------------------------- permute and friends
@register_lowering(aten.permute.default)
def permute(x: TensorValue, order: Sequence[int]) -> TensorValue:
    order = [d % max(x.ndim, 1) for d in order]
    if sorted(order) != list(range(x.ndim)):
        raise Unsupported(f"bad permutation {order}")
    if isinstance(x, BufferView):
        lay = x.layout
        return _with_layout(x, [lay.size[d] for d in order], [lay.stride[d] for d in order])

    def old_index(index: Index) -> Index:
        out: list[Any] = [None] * x.ndim
        for new_d, old_d in enumerate(order):
            out[old_d] = index[new_d]
        return out

    return _remap(x, [x.shape[d] for d in order], old_index, lambda base: permute(base, order))


@register_lowering(aten.transpose.int)
def transpose(x: TensorValue, dim0: int, dim1: int) -> TensorValue:
    order = list(range(x.ndim))
    if x.ndim:
        a, b = dims(dim0, x.ndim)[0], dims(dim1, x.ndim)[0]
        order[a], order[b] = order[b], order[a]
    return permute(x, order)


@register_lowering(aten.t.default)
def t(x: TensorValue) -> TensorValue:
    return permute(x, list(reversed(range(x.ndim))))


@register_lowering(aten.expand.default, aten.expand_copy.default)
def expand(x: TensorValue, sizes: Sequence[int], *, implicit: bool = False) -> TensorValue:
    lead = len(sizes) - x.ndim
    if lead < 0:
        raise Unsupported("expand to fewer dims")
    new = [x.shape[d - lead] if s == -1 else symbols.as_expr(s) for d, s in enumerate(sizes)]
    for d in range(x.ndim):
        if x.shape[d] != 1 and new[d + lead] != x.shape[d]:
            raise Unsupported(f"cannot expand {tuple(x.shape)} to {tuple(sizes)}")
    if isinstance(x, BufferView):
        stride = [sympy.Integer(0)] * lead + [
            sympy.Integer(0) if x.shape[d] == 1 and new[d + lead] != 1 else x.layout.stride[d] for d in range(x.ndim)
        ]
        return _with_layout(x, new, stride)
    return _remap(
        x,
        new,
        lambda index: [sympy.Integer(0) if x.shape[d] == 1 else index[d + lead] for d in range(x.ndim)],
        lambda base: expand(base, list(new)),
    )


@register_lowering(aten.squeeze.default, aten.squeeze.dim, aten.squeeze.dims)
def squeeze(x: TensorValue, dim: Any = None) -> TensorValue:
    drop = {d for d in dims(dim, x.ndim) if x.shape[d] == 1}
    keep = [d for d in range(x.ndim) if d not in drop]
    if isinstance(x, BufferView):
        lay = x.layout
        return _with_layout(x, [lay.size[d] for d in keep], [lay.stride[d] for d in keep])

    def old_index(index: Index) -> Index:
        out: list[Any] = [sympy.Integer(0)] * x.ndim
        for new_d, old_d in enumerate(keep):
            out[old_d] = index[new_d]
        return out

    return _remap(x, [x.shape[d] for d in keep], old_index, lambda base: squeeze(base, dim))


@register_lowering(aten.unsqueeze.default)
def unsqueeze(x: TensorValue, dim: int) -> TensorValue:
    dim = dim % (x.ndim + 1)
    if isinstance(x, BufferView):
        size, stride = list(x.layout.size), list(x.layout.stride)
        inner = stride[dim] * size[dim] if dim < len(size) else sympy.Integer(1)
        size.insert(dim, sympy.Integer(1))
        stride.insert(dim, inner)
        return _with_layout(x, size, stride)
    shape = list(x.shape)
    shape.insert(dim, sympy.Integer(1))
    return _remap(x, shape, lambda index: index[:dim] + index[dim + 1 :], lambda base: unsqueeze(base, dim))


# --------------------------------------------------------------------------------- slicing, select
def _normalize_slice(size: int, start: int | None, end: int | None, step: int) -> tuple[int, int]:
    start = 0 if start is None else start
    end = size if end is None else end
    start = start + size if start < 0 else start
    end = end + size if end < 0 else end
    start = min(max(start, 0), size)
    end = min(max(end, start), size)
    return start, (end - start + step - 1) // step


def _symbolic_slice(size: Any, start: Any, end: Any, step: int) -> tuple[Any, Any]:
    """``(begin, length)`` of a slice when the size or a bound is symbolic: bounds must provably lie
    in ``[0, size]`` (no clamping decided on a symbol), else the slice runs through ATen."""
    sv = sizevars()

    def bound(v: Any, default: Any) -> Any:
        if v is None or (isinstance(v, int) and v >= 1 << 62):
            return default
        e = (symbols.as_expr(v) if v >= 0 else size + v) if isinstance(v, int) else symbols.as_expr(v)
        if not (sv.provably_nonnegative(e) and sv.provably_le(e, size)):
            raise Unsupported(f"slice bound {v} of a symbolic size {size}")
        return e

    begin, stop = bound(start, sympy.Integer(0)), bound(end, size)
    if not sv.provably_le(begin, stop):
        raise Unsupported("slice bounds in an order that depends on the sizes")
    length = stop - begin if step == 1 else FloorDiv(stop - begin + step - 1, step)
    return begin, sympy.expand(length)


@register_lowering(aten.slice.Tensor)
def slice_(x: TensorValue, dim: int = 0, start: int | None = None, end: int | None = None, step: int = 1) -> TensorValue:
    if not isinstance(step, int) or step < 1:
        raise Unsupported("slice step < 1")
    (dim,) = dims(dim, x.ndim)
    size = symbols.static_int(x.shape[dim])
    if size is not None and all(v is None or isinstance(v, int) for v in (start, end)):
        begin, length = _normalize_slice(size, start, end, step)
    else:
        begin, length = _symbolic_slice(x.shape[dim], start, end, step)
    shape = list(x.shape)
    shape[dim] = symbols.as_expr(length)
    if isinstance(x, BufferView):
        lay = x.layout
        stride = list(lay.stride)
        stride[dim] = stride[dim] * step
        return _with_layout(x, shape, stride, lay.offset + lay.stride[dim] * begin)
    return _remap(x, shape, lambda index: [begin + step * i if d == dim else i for d, i in enumerate(index)])


@register_lowering(aten.select.int)
def select(x: TensorValue, dim: int, index: int) -> TensorValue:
    (dim,) = dims(dim, x.ndim)
    size = symbols.static_int(x.shape[dim])
    if not isinstance(index, int):
        raise Unsupported("select at a symbolic index")
    if size is None:  # a symbolic size: the index must be in range for every size
        sv = sizevars()
        at = symbols.as_expr(index) if index >= 0 else x.shape[dim] + index
        if not (sv.provably_nonnegative(at) and sv.provably_le(at + 1, x.shape[dim])):
            raise Unsupported("select index out of range for some sizes")
        index = at  # type: ignore[assignment]
    elif not -size <= index < size:
        raise Unsupported("select index out of range")
    else:
        index = index % size
    keep = [d for d in range(x.ndim) if d != dim]
    if isinstance(x, BufferView):
        lay = x.layout
        return _with_layout(x, [lay.size[d] for d in keep], [lay.stride[d] for d in keep], lay.offset + lay.stride[dim] * index)

    def old_index(new: Index) -> Index:
        out = list(new)
        out.insert(dim, symbols.as_expr(index))
        return out

    return _remap(x, [x.shape[d] for d in keep], old_index)


@register_lowering(aten.split.Tensor)
def split(x: TensorValue, split_size: int, dim: int = 0) -> list[TensorValue]:
    (d,) = dims(dim, x.ndim)
    size = static_dim(x, d)
    sizes = [min(split_size, size - s) for s in range(0, size, split_size)] if split_size else [size]
    return split_with_sizes(x, sizes or [0], dim)


@register_lowering(aten.split_with_sizes.default)
def split_with_sizes(x: TensorValue, split_sizes: Sequence[int], dim: int = 0) -> list[TensorValue]:
    out, start = [], 0
    for s in split_sizes:
        out.append(slice_(x, dim, start, start + s))
        start += s
    return out


@register_lowering(aten.unbind.int)
def unbind(x: TensorValue, dim: int = 0) -> list[TensorValue]:
    (d,) = dims(dim, x.ndim)
    return [select(x, d, i) for i in range(static_dim(x, d))]


@register_lowering(aten.diagonal.default)
def diagonal(x: TensorValue, offset: int = 0, dim1: int = 0, dim2: int = 1) -> TensorValue:
    (d1,), (d2,) = dims(dim1, x.ndim), dims(dim2, x.ndim)
    if d1 == d2:
        raise Unsupported("diagonal of one dim")
    shape = {d1: static_dim(x, d1), d2: static_dim(x, d2)}
    start1, start2 = (0, offset) if offset >= 0 else (-offset, 0)
    length = max(0, min(shape[d1] - start1, shape[d2] - start2))
    keep = [d for d in range(x.ndim) if d not in (d1, d2)]
    new_shape = [x.shape[d] for d in keep] + [sympy.Integer(length)]
    if isinstance(x, BufferView):
        lay = x.layout
        stride = [lay.stride[d] for d in keep] + [lay.stride[d1] + lay.stride[d2]]
        return _with_layout(x, new_shape, stride, lay.offset + lay.stride[d1] * start1 + lay.stride[d2] * start2)

    def old_index(index: Index) -> Index:
        out: list[Any] = [None] * x.ndim
        for new_d, old_d in enumerate(keep):
            out[old_d] = index[new_d]
        out[d1], out[d2] = index[-1] + start1, index[-1] + start2
        return out

    return _remap(x, new_shape, old_index)


@register_lowering(aten.as_strided.default)
def as_strided(x: TensorValue, size: Sequence[int], stride: Sequence[int], storage_offset: int | None = None) -> TensorValue:
    if not isinstance(x, BufferView):
        x = current().realize(x)
    if not isinstance(x.buffer, ComputedBuffer):
        raise Unsupported("as_strided of a buffer that may not start its storage")
    offset = x.layout.offset if storage_offset is None else storage_offset
    return _with_layout(x, size, stride, offset)


# ------------------------------------------------------------------------- index remaps (not views)
@register_lowering(aten.flip.default)
def flip(x: TensorValue, dims_: Sequence[int]) -> TensorValue:
    flipped = set(dims(list(dims_), x.ndim))
    shape = x.shape
    return _remap(x, x.shape, lambda index: [shape[d] - 1 - i if d in flipped else i for d, i in enumerate(index)])


@register_lowering(aten.repeat.default)
def repeat(x: TensorValue, repeats: Sequence[int]) -> TensorValue:
    lead = len(repeats) - x.ndim
    if lead < 0:
        raise Unsupported("fewer repeats than dims")
    shape = [sympy.Integer(1)] * lead + list(x.shape)
    new = [s * r for s, r in zip(shape, repeats)]

    def old_index(index: Index) -> Index:
        return [ModularIndexing(index[d + lead], 1, shape[d + lead]) for d in range(x.ndim)]

    return _remap(x, new, old_index)
