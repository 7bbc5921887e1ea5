"""The C source of each elementwise operation a loop body can call (``ops.<name>(...)``), and the C types.

``C_OPS[name](*operands)`` returns ``(source, dtype)``, as ``triton/textops.py`` does for Triton: operands
print as their variable names and carry the dtype of the value they hold (half types are held in
``float``). Math functions take the C library's ``f``-suffixed float versions for float32; the ones glibc's
vector math library (libmvec) implements are declared ``omp declare simd`` in :data:`PRELUDE`, so gcc
calls their vector versions from ``omp simd`` loops. Integer division and remainder go through helpers
that never trap (a zero divisor sets ``loom_zero_division``, which the host turns into eager's
``RuntimeError("ZeroDivisionError")``; ``INT_MIN / -1`` wraps), and integer arithmetic wraps (``-fwrapv``),
as ATen's does. An index loaded from a tensor is checked against the size it indexes (one out of range
sets ``loom_index_out_of_bounds``, which the host turns into eager's error).
"""

from __future__ import annotations

import re
from typing import Any

import torch

from ..kernels.numbers import register_dtype, wrap_int
from ..kernels.textops import BOOL, COMPARISONS, TextOp, by_kind, logical, same, to_bool

C_TYPES: dict[torch.dtype, str] = {
    torch.bool: "bool",
    torch.uint8: "uint8_t",
    torch.int8: "int8_t",
    torch.int16: "int16_t",
    torch.int32: "int32_t",
    torch.int64: "int64_t",
    torch.float16: "_Float16",
    torch.bfloat16: "uint16_t",  # gcc 12 has no bfloat16 arithmetic type: converted by hand (prelude)
    torch.float32: "float",
    torch.float64: "double",
}

def storage_type(dtype: torch.dtype) -> str:
    """The C type of one element of a buffer (or scratch row) of ``dtype``.

    bool is stored as ``uint8_t``: gcc 12 leaves a loop scalar when it loads a ``_Bool`` next to floats
    (``mask ? a : b`` in a masked softmax took 3 ns per element); a load converts 0/1 back to ``bool``.
    """
    return "uint8_t" if dtype == torch.bool else C_TYPES[dtype]


# Functions of <math.h> whose vector versions glibc's libmvec has (glibc >= 2.35 for most of them).
VECTOR_MATH = (
    "acos acosh asin asinh atan atanh cbrt cos cosh erf erfc exp exp10 exp2 expm1 log log10 log1p log2 "
    "sin sinh tan tanh"
).split()
VECTOR_MATH2 = ("atan2", "hypot", "pow")


def declare_simd(source: str) -> str:
    """``omp declare simd`` declarations of the libmvec functions ``source`` calls: gcc then calls their
    vector versions from ``omp simd`` loops (with ``-fno-math-errno``)."""
    lines = ["/* libmvec: vector versions of these math functions, called from `omp simd` loops. */"]
    for name in (*VECTOR_MATH, *VECTOR_MATH2):
        if name == "exp":  # expf is declared in the prelude, for loom_erf_f
            continue
        params = "float, float" if name in VECTOR_MATH2 else "float"
        for c_name, c_type in ((f"{name}f", "float"), (name, "double")):
            if re.search(rf"\b{c_name}\(", source):
                lines.append(f"#pragma omp declare simd notinbranch\n{c_type} {c_name}({params.replace('float', c_type)});")
    return "\n".join(lines) if len(lines) > 1 else ""


PRELUDE = (
    """\
#include <math.h>
#include <omp.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* erf in float: Abramowitz & Stegun 7.1.26 (|error| < 6e-7, as ATen's vectorised erf) through the vector
   expf; glibc's vector erff is three times slower. */
#pragma omp declare simd notinbranch
float expf(float);
#pragma omp declare simd notinbranch
double exp(double);
#pragma omp declare simd notinbranch
static inline float loom_erf_f(float x) {
    float a = fabsf(x), t = 1.0f / (1.0f + 0.3275911f * a);
    float p = ((((1.061405429f * t - 1.453152027f) * t + 1.421413741f) * t - 0.284496736f) * t + 0.254829592f) * t;
    return copysignf(1.0f - p * expf(-a * a), x);
}

/* On a full reduction's loop functions: gcc propagated the caller's constant sizes into an inlined or cloned
   copy whose `omp simd` float sum it then left scalar (a 4M-element sum took 3.2 ms, 0.5 ms as its own
   function). `noipa` (gcc) keeps the function as written; other compilers get `noinline`. */
#if defined(__GNUC__) && !defined(__clang__)
#define LOOM_NOIPA __attribute__((noipa))
#else
#define LOOM_NOIPA __attribute__((noinline))
#endif

/* This thread's share [*begin, *end) of n rows, in multiples of grain rows (an OpenMP static schedule). */
static inline void loom_thread_range(int64_t n, int64_t grain, int64_t *begin, int64_t *end) {
    int64_t threads = omp_get_num_threads(), t = omp_get_thread_num();
    int64_t chunk = ((n + threads - 1) / threads + grain - 1) / grain * grain;
    *begin = t * chunk < n ? t * chunk : n;
    *end = *begin + chunk < n ? *begin + chunk : n;
}

/* bfloat16 <-> float: the top half of a float's bits, rounded to nearest even (NaN stays NaN). */
static inline float loom_bf16_to_f32(uint16_t h) {
    uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f;
}
static inline uint16_t loom_f32_to_bf16(float f) {
    uint32_t u; memcpy(&u, &f, 4);
    if (f != f) return (uint16_t)((u >> 16) | 0x40);
    u += 0x7fff + ((u >> 16) & 1);
    return (uint16_t)(u >> 16);
}
static inline float loom_round_bf16(float f) { return loom_bf16_to_f32(loom_f32_to_bf16(f)); }
static inline float loom_round_f16(float f) { return (float)(_Float16)f; }

/* NaN-propagating maximum and minimum, like torch.maximum/minimum. */
#define LOOM_MINMAX(T, S) \\
static inline T loom_max##S(T a, T b) { return (a != a || a > b) ? a : b; } \\
static inline T loom_min##S(T a, T b) { return (a != a || a < b) ? a : b; }
LOOM_MINMAX(float, f) LOOM_MINMAX(double, d)

/* Integer division and remainder with floor (Python) and truncating (C) semantics, that never trap: a zero
   divisor gives 0 and sets loom_zero_division, which the entry point returns and the host turns into eager's
   RuntimeError("ZeroDivisionError"); INT_MIN / -1 wraps, as in ATen. */
static int loom_zero_division;
static inline void loom_divided_by_zero(void) { __atomic_store_n(&loom_zero_division, 1, __ATOMIC_RELAXED); }

/* An index read from a tensor (embedding, gather, index_select, advanced indexing) is checked against the
   size it indexes as eager checks it (advanced indexing first adds the size to a negative index): one out of
   range reads element 0, never memory outside the tensor, and sets a bit of the rows' loom_bad_index (bit 0
   for eager's IndexError, bit 1 for gather's RuntimeError), which they pass on here once; the entry point
   returns it and the host raises eager's error. */
static int loom_index_out_of_bounds;
static inline void loom_index_out_of_range(int kinds) { __atomic_fetch_or(&loom_index_out_of_bounds, kinds, __ATOMIC_RELAXED); }
#define LOOM_IDIV(T) \\
static inline T loom_truncdiv_##T(T a, T b) { \\
    if (b == 0) { loom_divided_by_zero(); return 0; } return b == -1 ? (T)(0 - (uint64_t)a) : a / b; } \\
static inline T loom_fmod_##T(T a, T b) { if (b == 0) { loom_divided_by_zero(); return 0; } return b == -1 ? 0 : a % b; } \\
static inline T loom_floordiv_##T(T a, T b) { \\
    T q = loom_truncdiv_##T(a, b); return (b != 0 && b != -1 && a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q; } \\
static inline T loom_remainder_##T(T a, T b) { \\
    T r = loom_fmod_##T(a, b); return (r != 0 && ((r < 0) != (b < 0))) ? r + b : r; } \\
static inline T loom_ipow_##T(T a, T b) { \\
    if (b < 0) return a == 1 ? 1 : (a == -1 ? ((b & 1) ? -1 : 1) : 0); \\
    uint64_t r = 1, x = (uint64_t)a; while (b) { if (b & 1) r *= x; x *= x; b >>= 1; } return (T)r; }
/* unsigned: floor and truncation agree, and there is no -1 */
#define LOOM_UDIV(T) \\
static inline T loom_truncdiv_##T(T a, T b) { if (b == 0) { loom_divided_by_zero(); return 0; } return a / b; } \\
static inline T loom_fmod_##T(T a, T b) { if (b == 0) { loom_divided_by_zero(); return 0; } return a % b; } \\
static inline T loom_floordiv_##T(T a, T b) { return loom_truncdiv_##T(a, b); } \\
static inline T loom_remainder_##T(T a, T b) { return loom_fmod_##T(a, b); } \\
static inline T loom_ipow_##T(T a, T b) { \\
    uint64_t r = 1, x = a; while (b) { if (b & 1) r *= x; x *= x; b >>= 1; } return (T)r; }
LOOM_IDIV(int8_t) LOOM_UDIV(uint8_t) LOOM_IDIV(int16_t) LOOM_IDIV(int32_t) LOOM_IDIV(int64_t)

/* Floating floor division and remainder with Python's semantics; M is the <math.h> suffix (f or none). */
#define LOOM_FDIV(T, S, M) \\
static inline T loom_floordiv_##S(T a, T b) { \\
    if (b == 0) return a / b; \\
    T m = fmod##M(a, b), d = (a - m) / b; \\
    if (m != 0 && ((b < 0) != (m < 0))) d -= 1; \\
    T f = floor##M(d); if (d - f > (T)0.5) f += 1; \\
    return d == 0 ? copysign##M((T)0, a / b) : f; } \\
static inline T loom_remainder_##S(T a, T b) { \\
    T m = fmod##M(a, b); return (m != 0 && ((b < 0) != (m < 0))) ? m + b : m; }
LOOM_FDIV(float, f, f) LOOM_FDIV(double, d, )

/* erfinv (no C library function): an initial guess refined by Newton steps on erf, in double. */
static inline double loom_erfinv_d(double y) {
    if (!(y > -1 && y < 1)) return y == 1 ? INFINITY : (y == -1 ? -INFINITY : NAN);
    double w = -log((1.0 - y) * (1.0 + y)), x;
    if (w < 5.0) { w -= 2.5; x = 2.81022636e-08; x = 3.43273939e-07 + x*w; x = -3.5233877e-06 + x*w;
        x = -4.39150654e-06 + x*w; x = 0.00021858087 + x*w; x = -0.00125372503 + x*w; x = -0.00417768164 + x*w;
        x = 0.246640727 + x*w; x = 1.50140941 + x*w; }
    else { w = sqrt(w) - 3.0; x = -0.000200214257; x = 0.000100950558 + x*w; x = 0.00134934322 + x*w;
        x = -0.00367342844 + x*w; x = 0.00573950773 + x*w; x = -0.0076224613 + x*w; x = 0.00943887047 + x*w;
        x = 1.00167406 + x*w; x = 2.83297682 + x*w; }
    x *= y;
    for (int i = 0; i < 3; i++) x -= (erf(x) - y) / (1.1283791670955126 * exp(-x * x));
    return x;
}
static inline double loom_erf_d(double x) { return erf(x); }
static inline float loom_erfinv_f(float y) { return (float)loom_erfinv_d((double)y); }
"""
)


def _suffix(dtype: torch.dtype) -> str:
    """The C library's name suffix for a float type held in registers (``expf`` / ``exp``)."""
    return "" if dtype == torch.float64 else "f"


def _tag(dtype: torch.dtype) -> str:
    """loom helper suffix: ``f``/``d`` for floats, the C type for integers."""
    if dtype.is_floating_point:
        return "d" if dtype == torch.float64 else "f"
    return C_TYPES[torch.uint8 if dtype == torch.bool else dtype]


def _math(name: str, arity: int = 1) -> TextOp:
    """``name(x)`` from <math.h>: ``expf`` for float32 (and halves), ``exp`` for float64."""

    def op(*args: Any) -> tuple[str, torch.dtype]:
        dtype = args[0].dtype
        return f"{name}{_suffix(register_dtype(dtype))}({', '.join(str(a) for a in args[:arity])})", dtype

    return op


def _fields(dtype: torch.dtype) -> dict[str, str]:
    """``{t}``: the loom helper suffix of the operands' type (``f``, ``d``, ``int32_t`` ...); ``{s}``: the C
    library's float suffix."""
    return {"t": _tag(register_dtype(dtype)), "s": _suffix(register_dtype(dtype))}


def _by_kind(float_t: str | TextOp, int_t: str, bool_t: str | None = None) -> TextOp:
    """Spellings for float, integer and bool operands (result: the first operand's dtype), with
    :func:`_fields` in the templates."""
    return by_kind(float_t, int_t, bool_t, _fields)


C_OPS: dict[str, TextOp] = {
    "add": _by_kind("{0} + {1}", "{0} + {1}", "{0} | {1}"),
    "sub": same("{0} - {1}"),
    "mul": _by_kind("{0} * {1}", "{0} * {1}", "{0} & {1}"),
    "truediv": same("{0} / {1}"),
    "neg": same("-{0}"),
    "abs": _by_kind("fabs{s}({0})", "({0} < 0 ? -{0} : {0})", "{0}"),
    "reciprocal": _by_kind("1 / {0}", "1 / {0}"),
    "floordiv": _by_kind("loom_floordiv_{t}({0}, {1})", "loom_floordiv_{t}({0}, {1})"),
    "truncdiv": _by_kind("trunc{s}({0} / {1})", "loom_truncdiv_{t}({0}, {1})"),
    "fmod": _by_kind("fmod{s}({0}, {1})", "loom_fmod_{t}({0}, {1})"),
    "remainder": _by_kind("loom_remainder_{t}({0}, {1})", "loom_remainder_{t}({0}, {1})"),
    "maximum": _by_kind("loom_max{t}({0}, {1})", "({0} > {1} ? {0} : {1})", "{0} | {1}"),
    "minimum": _by_kind("loom_min{t}({0}, {1})", "({0} < {1} ? {0} : {1})", "{0} & {1}"),
    "pow": _by_kind("pow{s}({0}, {1})", "loom_ipow_{t}({0}, {1})"),
    "fma": _by_kind("fma{s}({0}, {1}, {2})", "{0} * {1} + {2}"),
    "sigmoid": _by_kind("1 / (1 + exp{s}(-{0}))", "{0}"),
    "erfinv": _by_kind("loom_erfinv_{t}({0})", "{0}"),
    "floor": _by_kind("floor{s}({0})", "{0}", "{0}"),
    "ceil": _by_kind("ceil{s}({0})", "{0}", "{0}"),
    "trunc": _by_kind("trunc{s}({0})", "{0}", "{0}"),
    "round": _by_kind("nearbyint{s}({0})", "{0}", "{0}"),  # half to even, like torch.round
    "sign": _by_kind("(({0} > 0) - ({0} < 0))", "(({0} > 0) - ({0} < 0))", "{0}"),  # sign(NaN) is 0, as eager
    "isnan": to_bool("({0} != {0})"),
    "isinf": _by_kind(lambda a: (f"isinf({a})", BOOL), "0", "0"),
    # copysign, not signbit(): gcc 12 fails to compile (an internal error) vectorised signbit of a bfloat16
    "signbit": _by_kind(lambda a: (f"(copysign{_suffix(register_dtype(a.dtype))}(1, {a}) < 0)", BOOL), "({0} < 0)", "0"),
    **COMPARISONS,
    "logical_not": to_bool("!{0}"),
    "logical_and": logical("&&"),
    "logical_or": logical("||"),
    "logical_xor": logical("!="),
    "bitwise_not": _by_kind("~{0}", "~{0}", "!{0}"),
    "bitwise_and": same("{0} & {1}"),
    "bitwise_or": same("{0} | {1}"),
    "bitwise_xor": same("{0} ^ {1}"),
    "bitwise_left_shift": same("{0} << {1}"),
    "bitwise_right_shift": same("{0} >> {1}"),
}
for _name in (*VECTOR_MATH, "sqrt", "lgamma", "log"):
    C_OPS.setdefault(_name, _math(_name))
for _name in ("atan2", "hypot", "copysign", "nextafter"):
    C_OPS.setdefault(_name, _math(_name, 2))
C_OPS["erf"] = _by_kind("loom_erf_{t}({0})", "{0}")
C_OPS["rsqrt"] = _by_kind("1 / sqrt{s}({0})", "{0}")


def literal(value: Any, dtype: torch.dtype) -> str:
    """C source for a Python scalar as a value of ``dtype`` (held in its register type)."""
    reg = register_dtype(dtype)
    if reg == torch.bool:
        return "true" if bool(value) else "false"
    if reg.is_floating_point:
        value = float(value)
        suffix = "f" if reg == torch.float32 else ""
        if value != value:
            return "NAN" if suffix else "(double)NAN"
        if value in (float("inf"), float("-inf")):
            text = "INFINITY" if suffix else "(double)INFINITY"
            return text if value > 0 else f"(-{text})"
        text = repr(value)
        text = text if ("e" in text or "." in text) else text + ".0"
        return f"({text}{suffix})" if value < 0 else f"{text}{suffix}"
    v = wrap_int(value, reg)
    if reg == torch.int64:
        return "INT64_MIN" if v == -(2**63) else (f"({v}L)" if v < 0 else f"{v}L")
    return f"(({C_TYPES[reg]}){v})"
