"""Device functions the generated kernels call (``helpers.<name>``), and ``libdevice`` for them.

On a GPU ``libdevice`` is Triton's CUDA math library. Triton's interpreter cannot call it, so there
``libdevice`` is :class:`_InterpretedLibdevice`: the same function names computed with NumPy (or torch,
for the few NumPy lacks) on the interpreter's arrays. Import this module only after
``device.prepare()`` has decided whether kernels are interpreted.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import triton
import triton.language as tl

from .device import interpreting


@triton.jit
def maximum(a, b):
    """max(a, b) that propagates NaN from either side, like torch.maximum.

    Nested, not ``(a > b) | (a != a)``: Triton's interpreter cannot ``|`` a block with a 0-d comparison
    of floats (it broadcasts that as floats)."""
    return tl.where(a != a, a, tl.where(a > b, a, b))


@triton.jit
def minimum(a, b):
    return tl.where(a != a, a, tl.where(a < b, a, b))


@triton.jit
def floordiv_int(a, b):
    """Python (floor) division of integers; Triton's // truncates toward zero."""
    q = a // b
    fix = ((a % b) != 0) & ((a < 0) != (b < 0))
    return tl.where(fix, q - 1, q)


@triton.jit
def remainder_int(a, b):
    """Python remainder of integers (sign of the divisor); Triton's % takes the dividend's sign."""
    r = a % b
    fix = (r != 0) & ((r < 0) != (b < 0))
    return tl.where(fix, r + b, r)


@triton.jit
def remainder_float(a, b):
    r = a % b
    fix = (r != 0) & ((r < 0) != (b < 0))
    return tl.where(fix, r + b, r)


@triton.jit
def floordiv_float(a, b):
    """torch's floor division of floats (computed from fmod, exact where floor(a / b) rounds wrong)."""
    mod = a % b
    div = (a - mod) / b
    div = tl.where((mod != 0) & ((b < 0) != (mod < 0)), div - 1.0, div)
    floor_div = tl.floor(div)
    floor_div = tl.where(div - floor_div > 0.5, floor_div + 1.0, floor_div)
    zero = tl.where(a / b < 0, -0.0, 0.0)
    out = tl.where(div != 0, floor_div, zero)
    return tl.where(b == 0, a / b, out)


@triton.jit
def round_to_bf16(x):
    """float32 -> the nearest bfloat16 value (ties to even), still as float32.

    Used under the interpreter only, whose float32 -> bfloat16 cast truncates (a GPU rounds)."""
    bits = x.to(tl.uint32, bitcast=True)
    bits = bits + 0x7FFF + ((bits >> 16) & 1)
    rounded = (bits & 0xFFFF0000).to(tl.float32, bitcast=True)
    return tl.where(x != x, x, rounded)


@triton.jit
def sum_combine(a, b):
    return a + b


@triton.jit
def prod_combine(a, b):
    return a * b


@triton.jit
def argmax_combine(value_a, index_a, value_b, index_b):
    """Keeps the larger value (NaN counts as largest), the smaller index on ties."""
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    greater = (value_a > value_b) | (a_nan & ~b_nan)
    equal = (value_a == value_b) | (a_nan & b_nan)
    pick_a = greater | (equal & (index_a < index_b))
    return tl.where(pick_a, value_a, value_b), tl.where(pick_a, index_a, index_b)


@triton.jit
def argmin_combine(value_a, index_a, value_b, index_b):
    a_nan = value_a != value_a
    b_nan = value_b != value_b
    less = (value_a < value_b) | (a_nan & ~b_nan)
    equal = (value_a == value_b) | (a_nan & b_nan)
    pick_a = less | (equal & (index_a < index_b))
    return tl.where(pick_a, value_a, value_b), tl.where(pick_a, index_a, index_b)


class _InterpretedLibdevice:
    """``libdevice`` under Triton's interpreter: the functions the generated code uses, in NumPy."""

    @staticmethod
    def _wrap(fn: Any, result_dtype: Any = None) -> Any:
        def call(*args: Any) -> Any:
            from triton.runtime.interpreter import TensorHandle

            first = next(a for a in args if isinstance(a, tl.tensor))
            arrays = [a.handle.data if isinstance(a, tl.tensor) else a for a in args]
            with np.errstate(all="ignore"):
                out = np.asarray(fn(*arrays))
            dtype = result_dtype or first.dtype
            out = out.astype(_NP[dtype.name] if dtype.name in _NP else first.handle.data.dtype)
            shape = [tl.constexpr(s) for s in out.shape] if out.ndim else []
            return tl.tensor(TensorHandle(out, dtype.scalar), tl.block_type(dtype.scalar, shape) if shape else dtype)

        return call

    def __init__(self) -> None:
        unary = {
            "expm1": np.expm1,
            "log10": np.log10,
            "log1p": np.log1p,
            "tan": np.tan,
            "asin": np.arcsin,
            "acos": np.arccos,
            "atan": np.arctan,
            "sinh": np.sinh,
            "cosh": np.cosh,
            "tanh": np.tanh,
            "asinh": np.arcsinh,
            "acosh": np.arccosh,
            "atanh": np.arctanh,
            "trunc": np.trunc,
            "nearbyint": np.rint,
            "erfc": _vectorize(math.erfc),
            "lgamma": _vectorize(math.lgamma),
            "erfinv": _torch_unary("erfinv"),
        }
        binary = {
            "pow": np.power,
            "fmod": np.fmod,
            "atan2": np.arctan2,
            "hypot": np.hypot,
            "copysign": np.copysign,
            "nextafter": np.nextafter,
        }
        for name, fn in {**unary, **binary}.items():
            setattr(self, name, self._wrap(fn))
        self.signbit = self._wrap(lambda x: np.signbit(x).astype(np.int32), tl.int32)


_NP = {"fp32": np.float32, "fp64": np.float64, "int32": np.int32, "int64": np.int64}


def _vectorize(fn: Any) -> Any:
    vec = np.vectorize(fn, otypes=[np.float64])

    def call(x: np.ndarray) -> np.ndarray:
        def safe(v: float) -> float:
            try:
                return fn(v)
            except (ValueError, OverflowError):
                return float("inf") if fn is math.lgamma else float("nan")

        return np.vectorize(safe, otypes=[np.float64])(x).astype(x.dtype) if x.size else vec(x)

    return call


def _torch_unary(name: str) -> Any:
    def call(x: np.ndarray) -> np.ndarray:
        import torch

        return getattr(torch, name)(torch.from_numpy(np.ascontiguousarray(x))).numpy()

    return call


if interpreting():
    libdevice: Any = _InterpretedLibdevice()
else:  # pragma: no cover - needs a GPU
    from triton.language.extra import libdevice  # noqa: F401
