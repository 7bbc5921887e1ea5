"""The kernel sections of ``loom demo``: what loom's code generators made, and (for C) how fast it runs.

- :func:`c_section`: TinyGPT compiled with the ``c`` backend (loom's C kernels with OpenMP): its kernels,
  then its time per forward call against eager and torch.compile's default (inductor), measured in the
  same run in interleaved rounds. Without a registered ``c`` backend it says so and stops.
- :func:`triton_section`: the Triton kernels the ``triton`` backend generates for a small MLP.
"""

from __future__ import annotations

import sys
import time
import warnings
from collections.abc import Callable
from typing import Any

import torch

import loom
import loom_backends
from loom.examples.models import TinyGPT, TinyMLP

#: Kernels whose whole source is printed; the others are listed by name and ops.
SHOWN_SOURCES = 3


def _progress(message: str) -> None:
    print(f"[loom demo] {message}", file=sys.stderr, flush=True)


def _section(title: str) -> None:
    print(f"\n=== {title}")


def print_kernels(report: Any, shown: int = SHOWN_SOURCES) -> int:
    """List the kernels and extern calls of an explain report's graphs; the first ``shown`` in full."""
    kernels = [k for g in report.graphs for k in (getattr(g.compiled, "kernels", None) or [])]
    externs = [e for g in report.graphs for e in (getattr(g.compiled, "externs", None) or [])]
    names = sorted({str(getattr(e, "op", e)) for e in externs})
    print(f"{len(kernels)} generated kernels, {len(externs)} extern ATen calls ({', '.join(names) or 'none'})")
    for i, kernel in enumerate(kernels):
        ops = ", ".join(getattr(kernel, "ops", ()) or ())
        print(f"\n--- {getattr(kernel, 'name', '?')} ({getattr(kernel, 'kind', '?')}): {ops}")
        if i < shown:
            print(str(getattr(kernel, "source", "")).strip())
        elif i == shown:
            print(f"(sources of the other {len(kernels) - shown} kernels: `compiled.kernels`, or LOOM_LOGS=output_code)")
    return len(kernels)


def _best_ms(fns: dict[str, Callable[[], Any]], number: int, rounds: int) -> dict[str, float]:
    """Fastest wall time per call of each function over interleaved rounds (OpenMP threads included)."""
    best = dict.fromkeys(fns, float("inf"))
    names = list(fns)
    for r in range(rounds):
        for name in names[r % len(names):] + names[: r % len(names)]:
            started = time.perf_counter()
            for _ in range(number):
                fns[name]()
            best[name] = min(best[name], (time.perf_counter() - started) / number * 1e3)
    return best


def c_section(model: torch.nn.Module, quick: bool, compare_torch: bool) -> bool:
    """TinyGPT's C kernels and their speed; returns whether the C-compiled model matched eager."""
    _section("C kernels generated for TinyGPT (backend='c')")
    if "c" not in loom_backends.names():
        print("the c backend (loom's C code generator) is not registered in this install: nothing to show")
        return True
    ids = torch.randint(0, 128, (8, 32))
    _progress("compiling TinyGPT with the c backend")
    with torch.no_grad(), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always", loom_backends.CompilerWarning)
        report = loom.explain(model, backend="c")(ids)
        expected = model(ids)
    for warning in caught:
        if issubclass(warning.category, loom_backends.CompilerWarning):
            print(f"note: {warning.message}")
    same = torch.allclose(report.result, expected, rtol=1e-4, atol=1e-5)
    print(f"result matches eager: {same}; compiled in {report.compile_seconds * 1e3:.0f} ms")
    print_kernels(report)

    compiled = loom.compile(model, backend="c")
    fns: dict[str, Callable[[], Any]] = {"eager": lambda: model(ids), "loom c": lambda: compiled(ids)}
    with torch.no_grad():
        compiled(ids)
        if compare_torch and not quick:
            _progress("compiling TinyGPT with torch.compile's default (inductor; C++, several seconds)")
            inductor = torch.compile(model)
            inductor(ids)
            fns["torch.compile"] = lambda: inductor(ids)
        _progress("timing TinyGPT forward: eager, loom c" + (", torch.compile" if len(fns) > 2 else ""))
        best = _best_ms(fns, number=5 if quick else 20, rounds=3 if quick else 7)
    _section(f"TinyGPT forward (8x32 tokens), wall time per call, best of interleaved rounds, "
             f"{torch.get_num_threads()} thread(s)")
    base = best["eager"]
    print(" | ".join(f"{name} {ms:7.3f} ms" + ("" if name == "eager" else f" (x{base / ms:.2f} vs eager)")
                     for name, ms in best.items()))
    if "torch.compile" not in best:
        print("torch.compile (inductor) not timed" + (" with --quick" if quick else " (--no-torch-compile)"))
    return same


def triton_section() -> None:
    """The Triton kernels the ``triton`` backend generates for a small MLP (or why it cannot)."""
    _section("Triton kernels generated for a small MLP (backend='triton')")
    if "triton" not in loom_backends.names():
        print("the triton backend is not registered in this install")
        return
    _progress("compiling a small MLP with the triton backend")
    mlp = TinyMLP(width=16, depth=2).eval()
    x = torch.randn(4, 16)
    try:
        with torch.no_grad():
            report = loom.explain(mlp, backend="triton", options={"raise_on_internal_error": True})(x)
    except loom.InternalError as exc:
        cause = exc.__cause__
        print(f"not available yet: {type(cause).__name__}: {cause}" if cause else f"not available: {exc}")
        return
    same = torch.allclose(report.result, mlp(x), rtol=1e-4, atol=1e-5)
    print(f"result matches eager: {same}")
    print_kernels(report, shown=len(report.graphs) * 100)


__all__ = ["TinyGPT", "c_section", "print_kernels", "triton_section"]
