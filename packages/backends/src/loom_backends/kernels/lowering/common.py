"""Helpers shared by the lowering rules: argument checks, broadcasting, type promotion, pointwise values."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import sympy
import torch
from torch._prims_common import ELEMENTWISE_TYPE_PROMOTION_KIND as Promote
from torch._prims_common import elementwise_dtypes

from .. import symbols
from ..context import Unsupported, current
from ..ir import BufferView, Index, Pointwise, TensorValue, merge_origins
from ..ops import ops

Scalar = bool | int | float

SUPPORTED_DTYPES = frozenset(
    {
        torch.bool,
        torch.uint8,
        torch.int8,
        torch.int16,
        torch.int32,
        torch.int64,
        torch.float16,
        torch.bfloat16,
        torch.float32,
        torch.float64,
    }
)
HALF = (torch.float16, torch.bfloat16)

__all__ = [
    "HALF",
    "Promote",
    "Scalar",
    "broadcast_shapes",
    "check_dtype",
    "check_tensors",
    "current_op",
    "dims",
    "expand_loader",
    "make_pointwise",
    "promote",
    "realize",
    "static_dim",
]


def current_op() -> str:
    """Short name of the ATen op being lowered (``add``, ``amax``), for kernel names."""
    node = current().current_node
    if node is None or node.op != "call_function":
        return "op"
    packet = getattr(node.target, "overloadpacket", None)
    name = getattr(packet, "__name__", None) or getattr(node.target, "__name__", "op")
    return name.lstrip("_")


def check_dtype(dtype: torch.dtype) -> torch.dtype:
    if dtype not in SUPPORTED_DTYPES:
        raise Unsupported(f"dtype {dtype}")
    return dtype


def check_tensors(*values: Any) -> torch.device:
    """Check the tensors among ``values`` share one device and have supported dtypes; return the device."""
    devices = set()
    for v in values:
        if isinstance(v, TensorValue):
            check_dtype(v.dtype)
            devices.add(v.device)
        elif v is not None and not isinstance(v, (bool, int, float, sympy.Expr)):
            raise Unsupported(f"argument of type {type(v).__name__}")
    if len(devices) > 1:
        raise Unsupported(f"tensors on several devices {sorted(map(str, devices))}")
    if not devices:
        raise Unsupported("no tensor argument")
    return devices.pop()


def dims(dim: int | Sequence[int] | None, ndim: int) -> tuple[int, ...]:
    """Normalise a dim argument (negative, list or None for all) to sorted non-negative dims."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, int):
        dim = [dim]
    out = set()
    for d in dim:
        rank = max(ndim, 1)
        if not -rank <= d < rank:
            raise Unsupported(f"dim {d} out of range for {ndim} dims")
        out.add(d % rank if ndim else 0)
    return tuple(sorted(x for x in out if x < ndim)) if ndim else ()


def broadcast_shapes(*shapes: Sequence[sympy.Expr]) -> tuple[sympy.Expr, ...]:
    ndim = max((len(s) for s in shapes), default=0)
    out: list[sympy.Expr] = []
    for i in range(ndim):
        size: sympy.Expr = sympy.Integer(1)
        for s in shapes:
            j = i - (ndim - len(s))
            if j < 0 or s[j] == 1:
                continue
            if size != 1 and s[j] != size:
                raise Unsupported(f"shapes {[tuple(x) for x in shapes]} do not broadcast")
            size = s[j]
        out.append(size)
    return tuple(out)


def expand_loader(value: TensorValue, shape: Sequence[sympy.Expr]) -> Callable[[Index], Any]:
    """A loader of ``value`` broadcast to ``shape`` (right-aligned, size-1 dims read at index 0)."""
    load = value.loader()
    offset = len(shape) - value.ndim
    own = value.shape
    if tuple(own) == tuple(shape):
        return load

    def loader(index: Index) -> Any:
        return load([sympy.Integer(0) if own[i] == 1 else index[i + offset] for i in range(len(own))])

    return loader


def _meta(v: Any) -> Any:
    if isinstance(v, TensorValue):
        return torch.empty([1] * v.ndim, dtype=v.dtype, device="meta")
    if isinstance(v, sympy.Expr):  # a size (or a float computed from sizes): promotes like a Python scalar
        return 2 if v.is_integer else 2.0
    return v


def promote(*args: Any, kind: Promote = Promote.DEFAULT) -> tuple[torch.dtype, torch.dtype]:
    """``(compute dtype, result dtype)`` of an elementwise op on ``args`` (tensors and Python scalars)."""
    present = [a for a in args if a is not None]
    compute, result = elementwise_dtypes(*[_meta(a) for a in present], type_promotion_kind=kind)
    check_dtype(compute)
    check_dtype(result)
    return compute, result


def make_pointwise(
    fn: Callable[..., Any],
    inputs: Sequence[Any],
    dtype: torch.dtype,
    compute_dtype: torch.dtype | None = None,
    name: str | None = None,
) -> Pointwise:
    """A lazy elementwise value: ``fn`` applied to ``inputs`` (tensors broadcast, scalars as constants).

    Each tensor input is loaded and converted to ``compute_dtype`` (default: ``dtype``); scalars become
    constants of that dtype. ``fn`` receives the converted values and returns the result, which is
    converted to ``dtype``.
    """
    device = check_tensors(*inputs)
    check_dtype(dtype)
    compute = compute_dtype or dtype
    shape = broadcast_shapes(*[x.shape for x in inputs if isinstance(x, TensorValue)])
    loaders: list[Callable[[Index], Any]] = []
    for x in inputs:
        if isinstance(x, TensorValue):
            load = expand_loader(x, shape)
            loaders.append(_cast_loader(load, x.dtype, compute))
        elif x is None:
            loaders.append(lambda index: None)
        else:
            loaders.append(_constant_loader(x, compute))

    def inner(index: Index) -> Any:
        out = fn(*[load(index) for load in loaders])
        return ops.to_dtype(out, dtype)

    origins = merge_origins(*[x.origins for x in inputs if isinstance(x, TensorValue)], [name or current_op()])
    return Pointwise(shape, dtype, device, inner, origins)


def _cast_loader(load: Callable[[Index], Any], src: torch.dtype, dst: torch.dtype) -> Callable[[Index], Any]:
    if src == dst:
        return load
    return lambda index: ops.to_dtype(load(index), dst)


def _constant_loader(value: Scalar, dtype: torch.dtype) -> Callable[[Index], Any]:
    return lambda index: ops.constant(value, dtype)


def realize(value: TensorValue) -> BufferView:
    return current().realize(value)


def identity(value: TensorValue, dtype: torch.dtype | None = None, name: str = "clone") -> Pointwise:
    """A lazy copy of ``value`` (converted to ``dtype``); marks plain copies so externs can skip them."""
    out = make_pointwise(lambda x: x, [value], dtype or value.dtype, name=name)
    if isinstance(value, BufferView) and (dtype is None or dtype == value.dtype):
        out.identity_of = value
    return out


def static_dim(value: TensorValue, dim: int) -> int:
    """The size of one dim, which this rule needs as an int (declines a symbolic one)."""
    v = symbols.static_int(value.shape[dim])
    if v is None:
        raise Unsupported("symbolic size")
    return v


def is_size(value: Any) -> bool:
    """A symbolic size expression (dynamic shapes) where an int was expected."""
    return isinstance(value, sympy.Expr) and not isinstance(value, sympy.Integer) and value.is_integer is True


def sizevars() -> Any:
    return current().sizevars


def static_shape(value: TensorValue) -> tuple[int, ...]:
    out = []
    for s in value.shape:
        v = symbols.static_int(s)
        if v is None:
            raise Unsupported("symbolic size")
        out.append(v)
    return tuple(out)
