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

from typing import Any

import torch

from ..kernels.numbers import wrap_int
from ..kernels.textops import COMPARISONS, TextOp, by_kind, logical, same, to_bool

TEXT_OPS: dict[str, TextOp] = {
    # ---------------------------------------------------------------------------------- arithmetic
    "add": by_kind("{0} + {1}", "{0} + {1}", "{0} | {1}"),
    "sub": same("{0} - {1}"),
    "mul": by_kind("{0} * {1}", "{0} * {1}", "{0} & {1}"),
    "truediv": same("{0} / {1}"),
    "neg": same("-{0}"),
    "abs": by_kind("tl.abs({0})", "tl.abs({0})", "{0}"),
    "reciprocal": same("1.0 / {0}"),
    "floordiv": by_kind("helpers.floordiv_float({0}, {1})", "helpers.floordiv_int({0}, {1})"),
    "truncdiv": by_kind("libdevice.trunc({0} / {1})", "{0} // {1}"),  # Triton's integer // truncates
    "fmod": by_kind("libdevice.fmod({0}, {1})", "{0} % {1}"),  # Triton's integer % keeps the dividend's sign
    "remainder": by_kind("helpers.remainder_float({0}, {1})", "helpers.remainder_int({0}, {1})"),
    "maximum": by_kind("helpers.maximum({0}, {1})", "tl.maximum({0}, {1})", "{0} | {1}"),
    "minimum": by_kind("helpers.minimum({0}, {1})", "tl.minimum({0}, {1})", "{0} & {1}"),
    "pow": same("libdevice.pow({0}, {1})"),
    "fma": same("tl.fma({0}, {1}, {2})"),
    # ---------------------------------------------------------------------------- float functions
    "exp": same("tl.exp({0})"),
    "exp2": same("tl.exp2({0})"),
    "expm1": same("libdevice.expm1({0})"),
    "log": same("tl.log({0})"),
    "log2": same("tl.log2({0})"),
    "log10": same("libdevice.log10({0})"),
    "log1p": same("libdevice.log1p({0})"),
    "sqrt": same("tl.sqrt({0})"),
    "rsqrt": same("tl.rsqrt({0})"),
    "sin": same("tl.sin({0})"),
    "cos": same("tl.cos({0})"),
    "tan": same("libdevice.tan({0})"),
    "asin": same("libdevice.asin({0})"),
    "acos": same("libdevice.acos({0})"),
    "atan": same("libdevice.atan({0})"),
    "sinh": same("libdevice.sinh({0})"),
    "cosh": same("libdevice.cosh({0})"),
    "tanh": same("libdevice.tanh({0})"),
    "asinh": same("libdevice.asinh({0})"),
    "acosh": same("libdevice.acosh({0})"),
    "atanh": same("libdevice.atanh({0})"),
    "erf": same("tl.erf({0})"),
    "erfc": same("libdevice.erfc({0})"),
    "erfinv": same("libdevice.erfinv({0})"),
    "lgamma": same("libdevice.lgamma({0})"),
    "sigmoid": same("1.0 / (1.0 + tl.exp(-{0}))"),
    "atan2": same("libdevice.atan2({0}, {1})"),
    "hypot": same("libdevice.hypot({0}, {1})"),
    "copysign": same("libdevice.copysign({0}, {1})"),
    "nextafter": same("libdevice.nextafter({0}, {1})"),
    "floor": by_kind("tl.floor({0})", "{0}", "{0}"),
    "ceil": by_kind("tl.ceil({0})", "{0}", "{0}"),
    "trunc": by_kind("libdevice.trunc({0})", "{0}", "{0}"),
    "round": by_kind("libdevice.nearbyint({0})", "{0}", "{0}"),  # half to even, like torch.round
    "sign": by_kind(
        "tl.where({0} > 0, 1.0, tl.where({0} < 0, -1.0, 0.0)).to({0}.dtype)",
        "(({0} > 0).to({0}.dtype) - ({0} < 0).to({0}.dtype))",
        "{0}",
    ),
    # ------------------------------------------------------------------------------- predicates
    "isnan": to_bool("{0} != {0}"),  # never true for integers
    "isinf": by_kind("tl.abs({0}) == float('inf')", "{0} != {0}", "{0} != {0}"),
    "signbit": by_kind("libdevice.signbit({0}) != 0", "{0} < 0", "{0} != {0}"),
    **COMPARISONS,
    # ---------------------------------------------------------------------------------- logic
    "logical_not": to_bool("{0} == 0"),
    "logical_and": logical("&"),
    "logical_or": logical("|"),
    "logical_xor": logical("^"),
    "bitwise_not": by_kind("~{0}", "~{0}", "{0} == 0"),
    "bitwise_and": same("{0} & {1}"),
    "bitwise_or": same("{0} | {1}"),
    "bitwise_xor": same("{0} ^ {1}"),
    "bitwise_left_shift": same("{0} << {1}"),
    "bitwise_right_shift": same("{0} >> {1}"),
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
