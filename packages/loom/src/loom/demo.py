"""``loom demo``: compile a small GPT-style model and show what loom did and what it costs.

1. compile ``TinyGPT`` and check it against eager; print its graphs, guards and graph breaks
   (``loom.explain``), and those of a decoding loop that reads a token's value in Python;
2. time the first call (capture + compile) and the per-call overhead against eager and
   ``torch.compile`` in the same process (both with the eager backend; each warmed up first on an
   unrelated function so that one-off imports are not counted);
3. compile TinyGPT with the ``c`` backend (loom's C kernels with OpenMP) and print its kernels and its
   time per call against eager and torch.compile's default, inductor (not with ``--quick``), measured
   in the same run; without a registered ``c`` backend, say so;
4. compile a small MLP with the ``triton`` backend and print the kernels it generated.

Progress goes to stderr, one line per phase. Sizes are tiny: the whole demo takes seconds.
"""

from __future__ import annotations

import sys
import textwrap
import time
from collections.abc import Callable
from typing import Any

import torch

import loom
import loom_backends
from loom.examples.models import TinyGPT, generate, sin_plus_one, warm_up

from . import demo_kernels


def _progress(message: str) -> None:
    print(f"[loom demo] {message}", file=sys.stderr, flush=True)


def _section(title: str) -> None:
    print(f"\n=== {title}")


def _per_call_us(fns: dict[str, Callable[[], Any]], repeat: int, rounds: int = 7) -> dict[str, float]:
    """Best per-call thread CPU time of each function, rounds interleaved (see docs on benchmarking)."""
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            started = time.thread_time_ns()
            for _ in range(repeat):
                fn()
            best[name] = min(best[name], (time.thread_time_ns() - started) / repeat / 1e3)
    return best


def _first_call_ms(fn: Callable[..., Any], *args: Any) -> tuple[float, Any]:
    started = time.perf_counter()
    out = fn(*args)
    return (time.perf_counter() - started) * 1e3, out


def run_demo(backend: str = "eager", quick: bool = False, compare_torch: bool = True) -> int:
    """Run the demo; returns a process exit status (1 if a compiled result differs from eager)."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    ok = True
    model = TinyGPT(layers=2).eval()
    ids = torch.randint(0, 128, (2, 16))
    print(f"loom {loom.__version__}, torch {torch.__version__}; backends: {', '.join(loom_backends.names())}")

    _progress("warming up: loom's first translation in a process imports torch's FakeTensor machinery "
              "(which imports torch._dynamo): a few seconds, once")
    loom.explain(warm_up)(torch.randn(4))
    _progress(f"explaining TinyGPT (2 layers) with backend={backend!r}")
    with torch.no_grad():
        report = loom.explain(model, backend=backend)(ids)
        expected = model(ids)
    same = torch.allclose(report.result, expected, rtol=1e-4, atol=1e-5)
    ok &= same
    _section(f"loom.explain(TinyGPT) - result matches eager: {same}")
    print(report)

    _progress("explaining a greedy decoding loop that reads a token with .item()")
    with torch.no_grad():
        loop_report = loom.explain(generate)(model, ids[:1, :4], 3, 127)
        ok &= torch.equal(loop_report.result, generate(model, ids[:1, :4], 3, 127))
    _section("loom.explain(generate): graph breaks in a decoding loop")
    print(f"graphs: {loop_report.graph_count} (TinyGPT.forward, once per sequence length), "
          f"graph breaks: {loop_report.break_count}")
    for i, item in enumerate(loop_report.breaks, 1):
        print(f"  {i}. in {item.frame}: " + textwrap.indent(str(item), "     ").lstrip())

    ok &= _timings(model, ids, backend, quick, compare_torch)
    ok &= demo_kernels.c_section(model, quick, compare_torch)
    demo_kernels.triton_section()
    print()
    print("done" if ok else "MISMATCH: a compiled result differs from eager")
    return 0 if ok else 1


def _timings(model: torch.nn.Module, ids: torch.Tensor, backend: str, quick: bool, compare_torch: bool) -> bool:
    _progress("timing the first call (capture + compile) of TinyGPT")
    warm = torch.randn(8)
    loom.compile(warm_up, backend=backend)(warm)  # one-off imports and first-use costs, not TinyGPT's
    fresh = TinyGPT(layers=2).eval()
    fresh.load_state_dict(model.state_dict())
    with torch.no_grad():
        loom_ms, loom_out = _first_call_ms(loom.compile(fresh, backend=backend), ids)
        same = torch.allclose(loom_out, model(ids), rtol=1e-4, atol=1e-5)
        torch_ms = None
        if compare_torch:
            _progress("importing torch._dynamo and warming torch.compile up (a few seconds)")
            torch.compile(warm_up, backend="eager")(warm)
            twin = TinyGPT(layers=2).eval()
            twin.load_state_dict(model.state_dict())
            _progress("timing torch.compile's first call of TinyGPT")
            torch_ms, _ = _first_call_ms(torch.compile(twin, backend="eager"), ids)
    _section("first call of TinyGPT (capture + compile), wall time, one process")
    line = f"loom ({backend}) {loom_ms:8.1f} ms"
    if torch_ms is not None:
        line += f"   torch.compile (eager) {torch_ms:8.1f} ms   ratio {loom_ms / torch_ms:.2f}x"
    print(line + f"   loom matches eager: {same}")

    _progress("timing per-call overhead")
    repeat = 100 if quick else 1000
    t = torch.randn(16)
    tiny = loom.compile(sin_plus_one, backend=backend)
    tiny(t)
    fns: dict[str, Callable[[], Any]] = {"eager": lambda: sin_plus_one(t), "loom": lambda: tiny(t)}
    compiled_model = loom.compile(model, backend=backend)
    with torch.no_grad():
        compiled_model(ids)
        model_fns: dict[str, Callable[[], Any]] = {"eager": lambda: model(ids), "loom": lambda: compiled_model(ids)}
        if compare_torch:
            torch_tiny = torch.compile(sin_plus_one, backend="eager")
            torch_tiny(t)
            fns["torch.compile"] = lambda: torch_tiny(t)
            torch_model = torch.compile(model, backend="eager")
            torch_model(ids)
            model_fns["torch.compile"] = lambda: torch_model(ids)
        tiny_us = _per_call_us(fns, repeat)
        model_us = _per_call_us(model_fns, max(repeat // 20, 10))
    _section("per call, thread CPU time, best of 7 interleaved rounds")
    for title, times in (("sin(x) + 1 on 16 floats", tiny_us), ("TinyGPT forward, 2x16 tokens", model_us)):
        base = times["eager"]
        cells = [f"eager {base:8.2f} us"] + [
            f"{name} {us:8.2f} us ({us - base:+.2f})" for name, us in times.items() if name != "eager"
        ]
        print(f"{title:<30} " + " | ".join(cells))
    if "torch.compile" in tiny_us and tiny_us["torch.compile"] > tiny_us["eager"]:
        ratio = (tiny_us["loom"] - tiny_us["eager"]) / (tiny_us["torch.compile"] - tiny_us["eager"])
        print(f"loom's per-call overhead is {ratio:.2f}x torch.compile's")
    return same

