"""In-place writes whose written tensor overlaps memory the op reads: a graph break, never a functional answer.

Eager checks such writes (ATen's ``MemoryOverlap.cpp``): a TensorIterator op or ``copy_`` raises "unsupported
operation: some elements of the input tensor and the written-to tensor refer to a single memory location" when
its output and an input overlap *partially* (``y[:3].copy_(y[1:4])``), or "more than one element of the
written-to tensor refers to a single memory location" when the output is an ``expand()``ed view; other ops
(``index_select(..., out=y)``) refuse even a full overlap. Where ATen cannot tell (a view that is not dense,
``y[:, 1:4].copy_(y[:, :3])``) eager runs the kernel, whose result depends on the order it walks memory in.
A traced graph is made functional (the op reads its inputs' old values), so none of these come out as eager's.

:func:`check` runs on every op the fake mode sees writing its arguments, so its common case is cheap: a written
tensor sharing no storage with a tensor the op reads costs one aliasing query per pair. Where memory is shared,
the overlap is decided the way ATen does (dense tensors: byte ranges; full overlap when the ranges and the
strides are equal), and where ATen would not decide, exactly (the strides' lattice) or, past a small search,
conservatively; an overlap raises :class:`~loom_symbolic.errors.Unsupported`, so the op runs as the program runs
and eager raises its own error, or gives its own result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from math import gcd
from typing import Any

import torch

from .errors import Unsupported

#: Op packets that write a tensor's metadata or storage pointer, not its elements: nothing is read over.
_METADATA_WRITES = frozenset({"set_", "resize_", "resize_as_", "_resize_output_", "resize_as_sparse_",
                              "sparse_resize_", "sparse_resize_and_clear_"})

#: Op packets that are elementwise without the ``pointwise`` tag: a full overlap (same memory, same layout)
#: reads each element before writing it, as eager allows.
_ELEMENTWISE = frozenset({"copy_", "_copy_from", "where", "masked_fill_", "masked_fill"})

#: Op packets whose tensor ``value`` argument is 0-dim and read as a number before any element is written
#: (ATen calls ``value.item()`` first): a view of the written tensor there is no overlap.
_SCALAR_VALUES = frozenset({"fill_", "masked_fill_", "index_fill_"})

#: How many candidate steps the exact lattice search may take before it answers "may overlap".
_SEARCH_STEPS = 256

#: op -> None where it writes no element (a metadata write), else how :func:`check` reads its arguments: the
#: (position, name) of each argument its schema does not mark written, whether a read argument that *is* a written
#: tensor is skipped (an op writing arguments its schema does not mark: ``native_batch_norm``'s running statistics),
#: whether a full overlap is allowed (elementwise), and the op's name for messages.
_PLANS: dict[Any, tuple[list[tuple[int, str]], bool, bool, str] | None] = {}

_HINT = "clone() the tensor read before the write; the op runs as the program runs"
_WHY = ("eager raises (some elements of the input tensor and the written-to tensor refer to a single memory "
        "location) or gives the result of its kernel's order, which a functional graph does not reproduce")

_IS_ALIAS_OF = torch._C._is_alias_of
_TENSOR = torch.Tensor


def check(func: Any, written: list[Any], args: Sequence[object], kwargs: Mapping[str, object]) -> None:
    """Raise :class:`Unsupported` when op ``func`` writes (in place, or ``out=``) a tensor of ``written`` whose
    memory overlaps itself or a tensor the op reads; return quietly otherwise.

    Runs on every op writing its arguments: the common case (a contiguous tensor written, the others of another
    storage) costs a table lookup, a contiguity query and one aliasing query per read tensor, with no Python call.
    (ATen's ``_debug_has_internal_overlap`` is an op: through the fake mode, it would cost more than the rest.)"""
    plan = _PLANS[func] if func in _PLANS else _plan(func)
    if plan is None:
        return
    places, skip_written, elementwise, name = plan
    if len(written) > 1:  # a _foreach_ op's list: its tensors found by storage, not pair by pair
        _check_many(written, _reads(places, args, kwargs, len(written)), skip_written, elementwise, name)
        return
    target = written[0]
    if target.layout is not torch.strided:
        return
    # is_contiguous() is asked of static sizes only: over symbolic ones it would guard
    if (type(target.numel()) is not int or not target.is_contiguous()) and _has_internal_overlap(target):
        raise _internal_overlap(name)
    for index, argument in places:
        value = args[index] if index < len(args) else kwargs.get(argument)
        for source in (value if isinstance(value, (list, tuple)) else (value,)):
            if not isinstance(source, _TENSOR) or (source is not target and not _IS_ALIAS_OF(target, source)):
                continue  # the common case: another storage
            if not (skip_written and source is target):
                _against(target, source, elementwise, name)


def _check_many(written: list[Any], reads: list[tuple[int | None, Any]], skip_written: bool, elementwise: bool,
                name: str) -> None:
    """:func:`check` for an op writing several tensors (a ``_foreach_`` op's list): each read tensor is compared
    with the written tensors of its storage only.

    Eager writes the list's tensors one after another, so two written tensors sharing memory (one tensor listed
    twice, or overlapping views) see each other's writes, which a functional graph does not: that breaks. A read
    tensor at position ``i`` of a list as long as the written one (``reads``' positions) may be the ``i``-th written
    tensor itself, as for an elementwise op; an overlap with any other written tensor breaks."""
    by_storage: dict[int, list[tuple[int, Any]]] = {}
    for position, target in enumerate(written):
        if target.layout is not torch.strided or _empty(target):
            continue
        if (type(target.numel()) is not int or not target.is_contiguous()) and _has_internal_overlap(target):
            raise _internal_overlap(name)
        sharing = by_storage.setdefault(target.untyped_storage()._cdata, [])
        for _, other in sharing:
            if _overlap(target, other) != "none":
                raise Unsupported(f"aten.{name} writing one memory location through two tensors of its list",
                                  "eager writes them one after another, each seeing the other's write, which a "
                                  "functional graph does not reproduce", hint=_HINT)
        sharing.append((position, target))
    elementwise = elementwise or name.startswith("_foreach_")  # each output element reads its inputs' element only
    for read_position, source in reads:
        if source.layout is not torch.strided:
            continue
        for position, target in by_storage.get(source.untyped_storage()._cdata, ()):
            if not (skip_written and any(source is t for t in written)):
                _against(target, source, elementwise and read_position == position, name)


def _reads(places: list[tuple[int, str]], args: Sequence[object], kwargs: Mapping[str, object],
           written_count: int) -> list[tuple[int | None, Any]]:
    """The tensors of the arguments at ``places`` (one level into lists), each with its position in a list as
    long as the written one (``written_count`` tensors), else None."""
    found = []
    for index, argument in places:
        value = args[index] if index < len(args) else kwargs.get(argument)
        values = value if isinstance(value, (list, tuple)) else (value,)
        positional = isinstance(value, (list, tuple)) and len(value) == written_count
        found.extend((i if positional else None, v) for i, v in enumerate(values) if isinstance(v, _TENSOR))
    return found


def _against(target: torch.Tensor, source: torch.Tensor, elementwise: bool, name: str) -> None:
    """Raise where ``target``, written, overlaps ``source``, read, of its storage (but fully, by an elementwise op)."""
    if source.layout is not torch.strided or _empty(target):
        return
    status = _overlap(target, source)
    if status != "none" and not (status == "full" and elementwise):
        raise Unsupported(f"aten.{name} writing a tensor that overlaps a tensor it reads", _WHY, hint=_HINT)


def _internal_overlap(name: str) -> Unsupported:
    """The break for a written tensor two of whose elements may be one memory location."""
    return Unsupported(f"aten.{name} writing a tensor whose elements share memory (an expand()ed or as_strided view)",
                       "eager raises (more than one element of the written-to tensor refers to a single memory "
                       "location)", hint="clone() the tensor first; the op runs as the program runs")


def _plan(func: Any) -> tuple[list[tuple[int, str]], bool, bool, str] | None:
    """How :func:`check` reads op ``func``'s arguments (kept in :data:`_PLANS`)."""
    name = func.overloadpacket.__name__
    if name in _METADATA_WRITES or torch.Tag.inplace_view in func.tags:
        plan = None
    else:
        arguments = func._schema.arguments
        places = [(index, argument.name) for index, argument in enumerate(arguments)
                  if (argument.alias_info is None or not argument.alias_info.is_write)
                  and not (name in _SCALAR_VALUES and argument.name == "value")]
        plan = (places, len(places) == len(arguments), name in _ELEMENTWISE or torch.Tag.pointwise in func.tags, name)
    _PLANS[func] = plan
    return plan


def _empty(t: torch.Tensor) -> bool:
    """Whether ``t`` has no element (a symbolic count is not asked: that would guard on it)."""
    count = t.numel()
    return type(count) is int and count == 0


def _layout(t: torch.Tensor) -> tuple[Any, Any, Any] | None:
    """Sizes, strides and offset as ints; None when one is symbolic (it is not read, so no guard is made)."""
    sizes, strides, offset = tuple(t.shape), t.stride(), t.storage_offset()
    if all(type(v) is int for v in (*sizes, *strides, offset)):
        return sizes, strides, offset
    return None


def _dense(sizes: tuple[int, ...], strides: tuple[int, ...]) -> bool:
    """ATen's ``is_non_overlapping_and_dense``: some permutation of the dimensions is contiguous."""
    expected = 1
    for size, stride in sorted(((s, st) for s, st in zip(sizes, strides) if s >= 2), key=lambda p: p[1]):
        if stride != expected:
            return False
        expected *= size
    return True


def _has_internal_overlap(t: torch.Tensor) -> bool:
    """Whether two elements of ``t`` may be one memory location: a stride 0 over a size above 1 (where ATen
    raises), or strides not nested as a slice of a contiguous tensor's are (``as_strided``; ATen does not decide
    and its kernel's order gives the result). Symbolic strides: no (a view of a symbolic tensor is nested)."""
    layout = _layout(t)
    if layout is None:
        return any(type(s) is int and type(st) is int and s > 1 and st == 0 for s, st in zip(t.shape, t.stride()))
    sizes, strides, _ = layout
    if _dense(sizes, strides):
        return False
    span = 0
    for size, stride in sorted(((s, st) for s, st in zip(sizes, strides) if s >= 2), key=lambda p: p[1]):
        if stride <= span:
            return True
        span += (size - 1) * stride
    return False


def _overlap(a: torch.Tensor, b: torch.Tensor) -> str:
    """How two non-empty tensors of one storage overlap: "none", "full" (same memory, same layout) or
    "partial" (also: may overlap, where the layouts are symbolic or the exact search gives up)."""
    if a is b:
        return "full"
    if _empty(b):
        return "none"
    left, right = _layout(a), _layout(b)
    if left is None or right is None:
        return "full" if _same_symbolic_layout(a, b) else "partial"
    (sizes_a, strides_a, offset_a), (sizes_b, strides_b, offset_b) = left, right
    item_a, item_b = a.element_size(), b.element_size()
    begin_a, begin_b = offset_a * item_a, offset_b * item_b
    end_a = begin_a + (sum((s - 1) * st for s, st in zip(sizes_a, strides_a)) + 1) * item_a
    end_b = begin_b + (sum((s - 1) * st for s, st in zip(sizes_b, strides_b)) + 1) * item_b
    if end_a <= begin_b or end_b <= begin_a:
        return "none"
    if begin_a == begin_b and end_a == end_b and item_a == item_b and (sizes_a, strides_a) == (sizes_b, strides_b):
        return "full"
    if _dense(sizes_a, strides_a) and _dense(sizes_b, strides_b):
        # ATen's own decision: the same bytes with other strides (a transpose) are a partial overlap too
        return "partial"
    if item_a != item_b:
        return "partial"
    return "partial" if _lattice_meets(sizes_a, strides_a, offset_a, sizes_b, strides_b, offset_b) else "none"


def _same_symbolic_layout(a: torch.Tensor, b: torch.Tensor) -> bool:
    """Whether two tensors' layouts are provably the same (symbolic sizes compared without a guard)."""
    from torch.fx.experimental.symbolic_shapes import statically_known_true

    pairs = [(a.storage_offset(), b.storage_offset()), (a.dim(), b.dim()), (a.element_size(), b.element_size())]
    if a.dim() != b.dim():
        return False
    pairs += list(zip(a.shape, b.shape)) + list(zip(a.stride(), b.stride()))
    return all(x is y or statically_known_true(x == y) for x, y in pairs)


def _lattice_meets(sizes_a: tuple[int, ...], strides_a: tuple[int, ...], offset_a: int,
                   sizes_b: tuple[int, ...], strides_b: tuple[int, ...], offset_b: int) -> bool:
    """Whether some element of ``a`` and some element of ``b`` (one element size) are one memory location:
    ``offset_b - offset_a`` written as ``sum(i * stride) - sum(j * stride)`` within the sizes. Exact when
    neither has two dimensions of one stride (a depth-first search over the multipliers, largest stride first);
    otherwise only the strides' common divisor can prove them apart."""
    dims_a = {st: s for s, st in zip(sizes_a, strides_a) if s >= 2 and st}
    dims_b = {st: s for s, st in zip(sizes_b, strides_b) if s >= 2 and st}
    divisor = 0
    for stride in (*dims_a, *dims_b):
        divisor = gcd(divisor, stride)
    if divisor > 1 and (offset_b - offset_a) % divisor:
        return False  # every element of a sits at offset_a modulo the divisor, of b at offset_b: x[::2], x[1::2]
    if len(dims_a) != sum(s >= 2 and st != 0 for s, st in zip(sizes_a, strides_a)) or \
            len(dims_b) != sum(s >= 2 and st != 0 for s, st in zip(sizes_b, strides_b)):
        return True
    # a's element at i meets b's element at j: sum((i - j) * stride) == offset_b - offset_a, 0 <= i < size_a
    ranges = sorted(((st, -(dims_b.get(st, 1) - 1), dims_a.get(st, 1) - 1) for st in {*dims_a, *dims_b}),
                    reverse=True)
    return _reachable(offset_b - offset_a, ranges, [_SEARCH_STEPS])


def _reachable(target: int, ranges: list[tuple[int, int, int]], steps: list[int]) -> bool:
    """Whether ``target == sum(c * stride)`` for ``(stride, low, high)`` in ``ranges``, ``low <= c <= high``
    (True once the search spends its steps: "may overlap")."""
    if not ranges:
        return target == 0
    (stride, low, high), rest = ranges[0], ranges[1:]
    rest_low = sum(st * lo for st, lo, _ in rest)
    rest_high = sum(st * hi for st, _, hi in rest)
    first = max(low, -((rest_high - target) // stride))  # ceil((target - rest_high) / stride)
    last = min(high, (target - rest_low) // stride)
    for c in range(first, last + 1):
        steps[0] -= 1
        if steps[0] < 0 or _reachable(target - c * stride, rest, steps):
            return True
    return False
