"""Elementwise ops: every unary, binary and ternary core ATen op, with type promotion and broadcasting.

Most ops are one line in a table: the ATen op, the ``ops`` name it becomes and its type-promotion kind
(torch's own rules, from ``torch._prims_common``). Ops with extra arguments (``alpha``, rounding modes,
``clamp`` bounds, activation parameters) have a small rule each below the tables.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from ..context import Unsupported
from ..ir import Pointwise, TensorValue, merge_origins
from ..ops import ops
from .common import (
    HALF,
    Promote,
    broadcast_shapes,
    check_tensors,
    current_op,
    expand_loader,
    make_pointwise,
    promote,
)
from .registry import register_lowering

aten = torch.ops.aten

# aten op -> (ops name, promotion kind): one operand
UNARY: dict[Any, tuple[str, Promote]] = {
    aten.abs: ("abs", Promote.COMPLEX_TO_FLOAT),
    aten.neg: ("neg", Promote.DEFAULT),
    aten.reciprocal: ("reciprocal", Promote.INT_TO_FLOAT),
    aten.exp: ("exp", Promote.INT_TO_FLOAT),
    aten.exp2: ("exp2", Promote.INT_TO_FLOAT),
    aten.expm1: ("expm1", Promote.INT_TO_FLOAT),
    aten.log: ("log", Promote.INT_TO_FLOAT),
    aten.log2: ("log2", Promote.INT_TO_FLOAT),
    aten.log10: ("log10", Promote.INT_TO_FLOAT),
    aten.log1p: ("log1p", Promote.INT_TO_FLOAT),
    aten.sqrt: ("sqrt", Promote.INT_TO_FLOAT),
    aten.rsqrt: ("rsqrt", Promote.INT_TO_FLOAT),
    aten.sin: ("sin", Promote.INT_TO_FLOAT),
    aten.cos: ("cos", Promote.INT_TO_FLOAT),
    aten.tan: ("tan", Promote.INT_TO_FLOAT),
    aten.asin: ("asin", Promote.INT_TO_FLOAT),
    aten.acos: ("acos", Promote.INT_TO_FLOAT),
    aten.atan: ("atan", Promote.INT_TO_FLOAT),
    aten.sinh: ("sinh", Promote.INT_TO_FLOAT),
    aten.cosh: ("cosh", Promote.INT_TO_FLOAT),
    aten.tanh: ("tanh", Promote.INT_TO_FLOAT),
    aten.asinh: ("asinh", Promote.INT_TO_FLOAT),
    aten.acosh: ("acosh", Promote.INT_TO_FLOAT),
    aten.atanh: ("atanh", Promote.INT_TO_FLOAT),
    aten.erf: ("erf", Promote.INT_TO_FLOAT),
    aten.erfc: ("erfc", Promote.INT_TO_FLOAT),
    aten.erfinv: ("erfinv", Promote.INT_TO_FLOAT),
    aten.lgamma: ("lgamma", Promote.INT_TO_FLOAT),
    aten.sigmoid: ("sigmoid", Promote.INT_TO_FLOAT),
    aten.floor: ("floor", Promote.DEFAULT),
    aten.ceil: ("ceil", Promote.DEFAULT),
    aten.trunc: ("trunc", Promote.DEFAULT),
    aten.sign: ("sign", Promote.DEFAULT),
    aten.sgn: ("sign", Promote.DEFAULT),
    aten.isnan: ("isnan", Promote.ALWAYS_BOOL),
    aten.isinf: ("isinf", Promote.ALWAYS_BOOL),
    aten.signbit: ("signbit", Promote.ALWAYS_BOOL),
    aten.logical_not: ("logical_not", Promote.ALWAYS_BOOL),
    aten.bitwise_not: ("bitwise_not", Promote.DEFAULT),
}

# aten op -> (ops name, promotion kind): two operands, either may be a Python scalar
BINARY: dict[Any, tuple[str, Promote]] = {
    aten.mul: ("mul", Promote.DEFAULT),
    aten.maximum: ("maximum", Promote.DEFAULT),
    aten.minimum: ("minimum", Promote.DEFAULT),
    aten.atan2: ("atan2", Promote.INT_TO_FLOAT),
    aten.hypot: ("hypot", Promote.DEFAULT),
    aten.copysign: ("copysign", Promote.INT_TO_FLOAT),
    aten.nextafter: ("nextafter", Promote.DEFAULT),
    aten.fmod: ("fmod", Promote.DEFAULT),
    aten.remainder: ("remainder", Promote.DEFAULT),
    aten.floor_divide: ("floordiv", Promote.DEFAULT),
    aten.bitwise_and: ("bitwise_and", Promote.DEFAULT),
    aten.bitwise_or: ("bitwise_or", Promote.DEFAULT),
    aten.bitwise_xor: ("bitwise_xor", Promote.DEFAULT),
    aten.bitwise_left_shift: ("bitwise_left_shift", Promote.DEFAULT),
    aten.bitwise_right_shift: ("bitwise_right_shift", Promote.DEFAULT),
    aten.logical_and: ("logical_and", Promote.ALWAYS_BOOL),
    aten.logical_or: ("logical_or", Promote.ALWAYS_BOOL),
    aten.logical_xor: ("logical_xor", Promote.ALWAYS_BOOL),
}

# comparisons compute in the promoted dtype of both operands and return bool
COMPARISONS: dict[Any, str] = {
    aten.eq: "eq",
    aten.ne: "ne",
    aten.lt: "lt",
    aten.le: "le",
    aten.gt: "gt",
    aten.ge: "ge",
}

INTEGER_ONLY = {"bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"}


def _check_kind(name: str, dtype: torch.dtype) -> None:
    if name in INTEGER_ONLY and dtype.is_floating_point:
        raise Unsupported(f"{name} on {dtype}")
    if name in ("neg", "sub") and dtype == torch.bool:
        raise Unsupported(f"{name} on bool")
    if name in ("hypot", "nextafter") and not dtype.is_floating_point:
        raise Unsupported(f"{name} on {dtype}")
    if name in ("abs",) and dtype == torch.bool:
        raise Unsupported("abs on bool")


def _unary_rule(name: str, kind: Promote) -> Any:
    def rule(x: TensorValue) -> Any:
        compute, result = promote(x, kind=kind)
        if kind == Promote.ALWAYS_BOOL:
            compute = x.dtype  # predicates look at the value as it is
        _check_kind(name, compute)
        return make_pointwise(getattr(ops, name), [x], result, compute)

    return rule


def _binary_rule(name: str, kind: Promote) -> Any:
    def rule(a: Any, b: Any) -> Any:
        compute, result = promote(a, b, kind=kind)
        if kind == Promote.ALWAYS_BOOL:
            compute = torch.bool  # logical_and/or/xor: each operand is its truth value
        _check_kind(name, compute)
        if name in ("fmod", "remainder", "floordiv") and not compute.is_floating_point and _is_zero(b):
            raise Unsupported("integer division by zero")  # ATen raises; so will the extern call
        if name == "mul" and (_is_one(a) or _is_one(b)):
            # x * 1 is x converted to the result dtype (addmm's decomposition scales by alpha = beta = 1):
            # no multiplication in the generated code
            tensor = b if _is_one(a) else a
            return make_pointwise(lambda v: v, [tensor], result, compute)
        operands = [a, b] if name in ("mul", "floordiv") else _scalars_as_common(a, b)
        return make_pointwise(getattr(ops, name), operands, result, compute)

    return rule


def _is_one(x: Any) -> bool:
    """A Python scalar exactly 1 (a multiplication by it is exact in every dtype, NaN and -0.0 included)."""
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x == 1


def _compare_rule(name: str) -> Any:
    def rule(a: Any, b: Any) -> Any:
        compute, _ = promote(a, b)
        return make_pointwise(getattr(ops, name), _scalars_as_common(a, b), torch.bool, compute)

    return rule


def _scalars_as_common(a: Any, b: Any) -> list[Any]:
    """``[a, b]`` with a scalar operand (a Python float or a 0-d float tensor of another dtype) rounded to
    the operands' common dtype when that is a half type.

    ATen's kernels convert a scalar operand to the common dtype (``h == 0.1`` compares with
    ``float16(0.1)``); only ``add``, ``sub``, ``mul`` and ``div`` (every rounding mode) keep it
    unrounded, in float32.
    """
    _, common = promote(a, b)
    if common not in HALF:
        return [a, b]
    return [_round_scalar(v, common) for v in (a, b)]


def _round_scalar(v: Any, dtype: torch.dtype) -> Any:
    if isinstance(v, float):
        return float(torch.tensor(v, dtype=dtype))
    if isinstance(v, TensorValue) and v.ndim == 0 and v.dtype.is_floating_point and v.dtype != dtype:
        load = v.loader()
        return Pointwise((), dtype, v.device, lambda index: ops.convert(load(index), dtype), v.origins)
    return v


def _is_zero(x: Any) -> bool:
    return isinstance(x, (int, float)) and x == 0


for _op, (_name, _kind) in UNARY.items():
    register_lowering(_op)(_unary_rule(_name, _kind))
for _op, (_name, _kind) in BINARY.items():
    register_lowering(_op)(_binary_rule(_name, _kind))
for _op, _name in COMPARISONS.items():
    register_lowering(_op)(_compare_rule(_name))


# ------------------------------------------------------------------------------------ with arguments
@register_lowering(aten.add.Tensor, aten.add.Scalar)
def add(a: Any, b: Any, *, alpha: Any = 1) -> Any:
    return _add_sub("add", a, b, alpha)


@register_lowering(aten.sub.Tensor, aten.sub.Scalar)
def sub(a: Any, b: Any, *, alpha: Any = 1) -> Any:
    return _add_sub("sub", a, b, alpha)


def _add_sub(name: str, a: Any, b: Any, alpha: Any) -> Any:
    compute, result = promote(a, b)
    _check_kind(name, compute)
    if alpha != 1 and compute == torch.bool:
        raise Unsupported("alpha with bool")

    def fn(x: Any, y: Any) -> Any:
        if alpha != 1:
            y = ops.mul(y, ops.constant(alpha, compute))
        return getattr(ops, name)(x, y)

    return make_pointwise(fn, [a, b], result, compute)


@register_lowering(aten.rsub.Tensor, aten.rsub.Scalar)
def rsub(a: Any, b: Any, *, alpha: Any = 1) -> Any:
    return _add_sub("sub", b, a, alpha) if alpha == 1 else _rsub_alpha(a, b, alpha)


def _rsub_alpha(a: Any, b: Any, alpha: Any) -> Any:
    compute, result = promote(a, b)
    return make_pointwise(lambda x, y: ops.sub(y, ops.mul(x, ops.constant(alpha, compute))), [a, b], result, compute)


@register_lowering(aten.div.Tensor, aten.div.Scalar, aten.true_divide.Tensor, aten.true_divide.Scalar)
def div(a: Any, b: Any) -> Any:
    compute, result = promote(a, b, kind=Promote.INT_TO_FLOAT)
    return make_pointwise(ops.truediv, [a, b], result, compute)


@register_lowering(aten.div.Tensor_mode, aten.div.Scalar_mode)
def div_mode(a: Any, b: Any, *, rounding_mode: str | None = None) -> Any:
    if rounding_mode is None:
        return div(a, b)
    compute, result = promote(a, b)
    if compute == torch.bool:
        raise Unsupported("rounding division of bools")
    if not compute.is_floating_point and _is_zero(b):
        raise Unsupported("integer division by zero")
    name = {"trunc": "truncdiv", "floor": "floordiv"}.get(rounding_mode)
    if name is None:
        raise Unsupported(f"rounding_mode={rounding_mode!r}")
    return make_pointwise(getattr(ops, name), [a, b], result, compute)


@register_lowering(aten.pow.Tensor_Tensor, aten.pow.Tensor_Scalar, aten.pow.Scalar)
def pow_(a: Any, b: Any) -> Any:
    compute, result = promote(a, b, kind=Promote.BOOL_TO_LONG)
    if not compute.is_floating_point:
        if isinstance(b, int) and 0 <= b <= 64 and isinstance(a, TensorValue):
            return make_pointwise(lambda x: _int_power(x, b, compute), [a], result, compute)
        raise Unsupported("integer pow with a tensor or negative exponent")
    if isinstance(b, (int, float)) and isinstance(a, TensorValue):
        special = _POW_SPECIAL.get(float(b))
        if special is not None:
            return make_pointwise(lambda x: special(x, compute), [a], result, compute)
    return make_pointwise(ops.pow, [a, b], result, compute)


def _int_power(x: Any, n: int, dtype: torch.dtype) -> Any:
    out, base = ops.constant(1, dtype), x
    while n:
        if n & 1:
            out = ops.mul(out, base)
        n >>= 1
        if n:
            base = ops.mul(base, base)
    return out


# ATen's pow(tensor, scalar) takes these shortcuts; taking the same ones gives the same roundings.
_POW_SPECIAL: dict[float, Any] = {
    0.5: lambda x, dt: ops.sqrt(x),
    2.0: lambda x, dt: ops.mul(x, x),
    3.0: lambda x, dt: ops.mul(ops.mul(x, x), x),
    -0.5: lambda x, dt: ops.rsqrt(x),
    -1.0: lambda x, dt: ops.reciprocal(x),
    -2.0: lambda x, dt: ops.reciprocal(ops.mul(x, x)),
    1.0: lambda x, dt: x,
}


@register_lowering(aten.round.default)
def round_(x: TensorValue) -> Any:
    return make_pointwise(ops.round, [x], x.dtype)


@register_lowering(aten.round.decimals)
def round_decimals(x: TensorValue, *, decimals: int = 0) -> Any:
    compute, result = promote(x)
    if not compute.is_floating_point:
        raise Unsupported("round with decimals on integers")
    scale = 10.0**decimals
    if decimals >= 0:
        fn = lambda v: ops.truediv(ops.round(ops.mul(v, ops.constant(scale, compute))), ops.constant(scale, compute))  # noqa: E731
    else:
        inv = 10.0 ** (-decimals)
        fn = lambda v: ops.mul(ops.round(ops.truediv(v, ops.constant(inv, compute))), ops.constant(inv, compute))  # noqa: E731
    return make_pointwise(fn, [x], result, compute)


@register_lowering(aten.where.self, aten.where.ScalarSelf, aten.where.ScalarOther, aten.where.Scalar)
def where(cond: Any, a: Any, b: Any) -> Any:
    compute, result = promote(a, b)
    if not isinstance(cond, TensorValue):
        raise Unsupported("scalar condition")
    a, b = _scalars_as_common(a, b)
    device = check_tensors(cond, a, b)
    shape = broadcast_shapes(*[v.shape for v in (cond, a, b) if isinstance(v, TensorValue)])
    load_c = expand_loader(cond, shape)

    def branch(v: Any) -> Any:
        if isinstance(v, TensorValue):
            load = expand_loader(v, shape)
            return lambda index: ops.to_dtype(load(index), compute)
        return lambda index: ops.constant(v, compute)

    load_a, load_b = branch(a), branch(b)

    def fn(index: Any) -> Any:
        c = load_c(index)
        if cond.dtype != torch.bool:
            c = ops.to_dtype(c, torch.bool)
        return ops.to_dtype(ops.where(c, load_a(index), load_b(index)), result)

    origins = merge_origins(*[v.origins for v in (cond, a, b) if isinstance(v, TensorValue)], [current_op()])
    return Pointwise(shape, result, device, fn, origins)


@register_lowering(aten.clamp.default, aten.clamp.Tensor)
def clamp(x: TensorValue, min: Any = None, max: Any = None) -> Any:
    if min is None and max is None:
        raise Unsupported("clamp without bounds")
    compute, result = promote(x, min, max)
    _, common = promote(x, min, max)
    min, max = (_round_scalar(v, common) if common in HALF else v for v in (min, max))

    def fn(v: Any, lo: Any, hi: Any) -> Any:
        if lo is not None:
            v = ops.maximum(v, lo)
        if hi is not None:
            v = ops.minimum(v, hi)
        return v

    return make_pointwise(fn, [x, min, max], result, compute)


@register_lowering(aten.clamp_min.default, aten.clamp_min.Tensor)
def clamp_min(x: TensorValue, min: Any) -> Any:
    return clamp(x, min, None)


@register_lowering(aten.clamp_max.default, aten.clamp_max.Tensor)
def clamp_max(x: TensorValue, max: Any) -> Any:
    return clamp(x, None, max)


@register_lowering(aten.hardtanh.default)
def hardtanh(x: TensorValue, min_val: float = -1.0, max_val: float = 1.0) -> Any:
    if x.dtype == torch.bool:
        raise Unsupported("hardtanh on bool")
    # unlike clamp, hardtanh keeps the input's dtype: the bounds are converted to it
    return make_pointwise(
        lambda v: ops.minimum(ops.maximum(v, ops.constant(min_val, x.dtype)), ops.constant(max_val, x.dtype)), [x], x.dtype
    )


@register_lowering(aten.relu.default)
def relu(x: TensorValue) -> Any:
    if x.dtype == torch.bool:
        raise Unsupported("relu on bool")
    return make_pointwise(lambda v: ops.maximum(v, ops.constant(0, x.dtype)), [x], x.dtype)


@register_lowering(aten.leaky_relu.default)
def leaky_relu(x: TensorValue, negative_slope: float = 0.01) -> Any:
    compute, result = promote(x)
    return make_pointwise(
        lambda v: ops.where(
            ops.gt(v, ops.constant(0, compute)), v, ops.mul(v, ops.constant(negative_slope, compute))
        ),
        [x],
        result,
        compute,
    )


@register_lowering(aten.elu.default)
def elu(x: TensorValue, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Any:
    compute, result = promote(x)
    if not compute.is_floating_point:
        raise Unsupported("elu on integers")

    def fn(v: Any) -> Any:
        c = lambda value: ops.constant(value, compute)  # noqa: E731
        negative = ops.mul(ops.expm1(ops.mul(v, c(input_scale))), c(alpha * scale))
        return ops.where(ops.gt(v, c(0)), ops.mul(v, c(scale)), negative)

    return make_pointwise(fn, [x], result, compute)


@register_lowering(aten.gelu.default)
def gelu(x: TensorValue, *, approximate: str = "none") -> Any:
    compute, result = promote(x)
    if not compute.is_floating_point:
        raise Unsupported("gelu on integers")

    def fn(v: Any) -> Any:
        c = lambda value: ops.constant(value, compute)  # noqa: E731
        if approximate == "tanh":
            inner = ops.mul(c(math.sqrt(2.0 / math.pi)), ops.add(v, ops.mul(c(0.044715), ops.mul(ops.mul(v, v), v))))
            return ops.mul(ops.mul(c(0.5), v), ops.add(c(1.0), ops.tanh(inner)))
        return ops.mul(ops.mul(v, c(0.5)), ops.add(c(1.0), ops.erf(ops.mul(v, c(1.0 / math.sqrt(2.0))))))

    if approximate not in ("none", "tanh"):
        raise Unsupported(f"gelu approximate={approximate!r}")
    return make_pointwise(fn, [x], result, compute)


@register_lowering(aten.silu.default)
def silu(x: TensorValue) -> Any:
    compute, result = promote(x, kind=Promote.INT_TO_FLOAT)
    return make_pointwise(lambda v: ops.mul(v, ops.sigmoid(v)), [x], result, compute)


@register_lowering(aten.lerp.Scalar, aten.lerp.Tensor)
def lerp(start: Any, end: Any, weight: Any) -> Any:
    compute, result = promote(start, end, weight)
    if not compute.is_floating_point:
        raise Unsupported("lerp on integers")

    def fn(a: Any, b: Any, w: Any) -> Any:
        # ATen's formula: weight < 0.5 ? a + w * (b - a) : b - (b - a) * (1 - w)
        diff = ops.sub(b, a)
        low = ops.add(a, ops.mul(w, diff))
        high = ops.sub(b, ops.mul(diff, ops.sub(ops.constant(1.0, compute), w)))
        return ops.where(ops.lt(ops.abs(w), ops.constant(0.5, compute)), low, high)

    return make_pointwise(fn, [start, end, weight], result, compute)
