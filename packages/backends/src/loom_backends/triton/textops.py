"""The Triton source of each elementwise operation a loop body can call (``ops.<name>(...)``).

``TEXT_OPS[name](*operands)`` returns ``(source, dtype)``: operands print as their variable names and
carry the dtype of the value they hold. The lowering rules have already converted operands to the
dtype the operation computes in, so these only pick the right spelling for floats, integers and bools.
Half-precision values are held in float32 registers (the loads upcast, the stores round).

Math functions without a ``tl.`` builtin come from ``libdevice`` (CUDA's math library); under the
interpreter ``helpers.py`` provides the same names in NumPy. Only Triton *builtins* (and ``helpers``) are
used, never ``triton.language``'s own ``@jit`` functions (``tl.sum``, ``tl.sigmoid``, ``tl.zeros``): when
triton was imported before the interpreter was switched on those cannot run under it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from ..kernels.numbers import wrap_int

BOOL = torch.bool
TextOp = Callable[..., tuple[str, torch.dtype]]


def is_float(dtype: torch.dtype) -> bool:
    return dtype.is_floating_point


def is_bool(dtype: torch.dtype) -> bool:
    return dtype == torch.bool


def _same(template: str) -> TextOp:
    """An op whose result has the dtype of its first operand."""

    def op(*args: Any) -> tuple[str, torch.dtype]:
        return template.format(*args), args[0].dtype

    return op


def _to_bool(template: str) -> TextOp:
    def op(*args: Any) -> tuple[str, torch.dtype]:
        return template.format(*args), BOOL

    return op


def _logical(operator: str) -> TextOp:
    """``logical_and``/``or``/``xor``: bools combine as they are, other operands are tested against 0."""

    def truth(x: Any) -> str:
        return str(x) if is_bool(x.dtype) else f"({x} != 0)"

    def op(a: Any, b: Any) -> tuple[str, torch.dtype]:
        return f"{truth(a)} {operator} {truth(b)}", BOOL

    return op


def _by_kind(float_t: str, int_t: str, bool_t: str | None = None) -> TextOp:
    """Different spellings for floating, integer and bool operands (result dtype of the first operand)."""

    def op(*args: Any) -> tuple[str, torch.dtype]:
        dtype = args[0].dtype
        if is_float(dtype):
            template = float_t
        elif is_bool(dtype) and bool_t is not None:
            template = bool_t
        else:
            template = int_t
        return template.format(*args), dtype

    return op


TEXT_OPS: dict[str, TextOp] = {
    # ---------------------------------------------------------------------------------- arithmetic
    "add": _by_kind("{0} + {1}", "{0} + {1}", "{0} | {1}"),
    "sub": _same("{0} - {1}"),
    "mul": _by_kind("{0} * {1}", "{0} * {1}", "{0} & {1}"),
    "truediv": _same("{0} / {1}"),
    "neg": _same("-{0}"),
    "abs": _by_kind("tl.abs({0})", "tl.abs({0})", "{0}"),
    "reciprocal": _same("1.0 / {0}"),
    "floordiv": _by_kind("helpers.floordiv_float({0}, {1})", "helpers.floordiv_int({0}, {1})"),
    "truncdiv": _by_kind("libdevice.trunc({0} / {1})", "{0} // {1}"),  # Triton's integer // truncates
    "fmod": _by_kind("libdevice.fmod({0}, {1})", "{0} % {1}"),  # Triton's integer % keeps the dividend's sign
    "remainder": _by_kind("helpers.remainder_float({0}, {1})", "helpers.remainder_int({0}, {1})"),
    "maximum": _by_kind("helpers.maximum({0}, {1})", "tl.maximum({0}, {1})", "{0} | {1}"),
    "minimum": _by_kind("helpers.minimum({0}, {1})", "tl.minimum({0}, {1})", "{0} & {1}"),
    "pow": _same("libdevice.pow({0}, {1})"),
    "fma": _same("tl.fma({0}, {1}, {2})"),
    # ---------------------------------------------------------------------------- float functions
    "exp": _same("tl.exp({0})"),
    "exp2": _same("tl.exp2({0})"),
    "expm1": _same("libdevice.expm1({0})"),
    "log": _same("tl.log({0})"),
    "log2": _same("tl.log2({0})"),
    "log10": _same("libdevice.log10({0})"),
    "log1p": _same("libdevice.log1p({0})"),
    "sqrt": _same("tl.sqrt({0})"),
    "rsqrt": _same("tl.rsqrt({0})"),
    "sin": _same("tl.sin({0})"),
    "cos": _same("tl.cos({0})"),
    "tan": _same("libdevice.tan({0})"),
    "asin": _same("libdevice.asin({0})"),
    "acos": _same("libdevice.acos({0})"),
    "atan": _same("libdevice.atan({0})"),
    "sinh": _same("libdevice.sinh({0})"),
    "cosh": _same("libdevice.cosh({0})"),
    "tanh": _same("libdevice.tanh({0})"),
    "asinh": _same("libdevice.asinh({0})"),
    "acosh": _same("libdevice.acosh({0})"),
    "atanh": _same("libdevice.atanh({0})"),
    "erf": _same("tl.erf({0})"),
    "erfc": _same("libdevice.erfc({0})"),
    "erfinv": _same("libdevice.erfinv({0})"),
    "lgamma": _same("libdevice.lgamma({0})"),
    "sigmoid": _same("1.0 / (1.0 + tl.exp(-{0}))"),
    "atan2": _same("libdevice.atan2({0}, {1})"),
    "hypot": _same("libdevice.hypot({0}, {1})"),
    "copysign": _same("libdevice.copysign({0}, {1})"),
    "nextafter": _same("libdevice.nextafter({0}, {1})"),
    "floor": _by_kind("tl.floor({0})", "{0}", "{0}"),
    "ceil": _by_kind("tl.ceil({0})", "{0}", "{0}"),
    "trunc": _by_kind("libdevice.trunc({0})", "{0}", "{0}"),
    "round": _by_kind("libdevice.nearbyint({0})", "{0}", "{0}"),  # half to even, like torch.round
    "sign": _by_kind(
        "tl.where({0} > 0, 1.0, tl.where({0} < 0, -1.0, 0.0)).to({0}.dtype)",
        "(({0} > 0).to({0}.dtype) - ({0} < 0).to({0}.dtype))",
        "{0}",
    ),
    # ------------------------------------------------------------------------------- predicates
    "isnan": _to_bool("{0} != {0}"),  # never true for integers
    "isinf": _by_kind("tl.abs({0}) == float('inf')", "{0} != {0}", "{0} != {0}"),
    "signbit": _by_kind("libdevice.signbit({0}) != 0", "{0} < 0", "{0} != {0}"),
    "eq": _to_bool("{0} == {1}"),
    "ne": _to_bool("{0} != {1}"),
    "lt": _to_bool("{0} < {1}"),
    "le": _to_bool("{0} <= {1}"),
    "gt": _to_bool("{0} > {1}"),
    "ge": _to_bool("{0} >= {1}"),
    # ---------------------------------------------------------------------------------- logic
    "logical_not": _to_bool("{0} == 0"),
    "logical_and": _logical("&"),
    "logical_or": _logical("|"),
    "logical_xor": _logical("^"),
    "bitwise_not": _by_kind("~{0}", "~{0}", "{0} == 0"),
    "bitwise_and": _same("{0} & {1}"),
    "bitwise_or": _same("{0} | {1}"),
    "bitwise_xor": _same("{0} ^ {1}"),
    "bitwise_left_shift": _same("{0} << {1}"),
    "bitwise_right_shift": _same("{0} >> {1}"),
}

TRITON_DTYPES: dict[torch.dtype, str] = {
    torch.bool: "tl.int1",
    torch.uint8: "tl.uint8",
    torch.int8: "tl.int8",
    torch.int16: "tl.int16",
    torch.int32: "tl.int32",
    torch.int64: "tl.int64",
    torch.float16: "tl.float16",
    torch.bfloat16: "tl.bfloat16",
    torch.float32: "tl.float32",
    torch.float64: "tl.float64",
}


def literal(value: Any, dtype: torch.dtype) -> str:
    """Source for a Python scalar converted to ``dtype``."""
    if dtype == torch.bool:
        return "1" if bool(value) else "0"
    if dtype.is_floating_point:
        value = float(value)
        if value != value:
            return 'float("nan")'
        if value in (float("inf"), float("-inf")):
            return 'float("inf")' if value > 0 else 'float("-inf")'
        return repr(value)
    return str(wrap_int(value, dtype))
