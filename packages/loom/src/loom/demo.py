"""``loom demo``: compile a small model, show the graph, guards and breaks, and time it against eager
and ``torch.compile`` in the same run."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import torch

import loom
from loom.examples.models import TinyMLP, sin_plus_one


def _per_call_us(fn: Callable[[], Any], repeat: int) -> float:
    best = float("inf")
    for _ in range(5):
        started = time.thread_time_ns()
        for _ in range(repeat):
            fn()
        best = min(best, (time.thread_time_ns() - started) / repeat / 1e3)
    return best


def _section(title: str) -> None:
    print(f"\n=== {title}")


def run_demo(backend: str = "eager", quick: bool = False) -> int:
    """Run the demo; returns a process exit status."""
    torch.manual_seed(0)
    torch.set_num_threads(1)
    model = TinyMLP().eval()
    x = torch.randn(4, 64)
    compiled = loom.compile(model, backend=backend)

    started = time.perf_counter()
    out = compiled(x)
    first_call = time.perf_counter() - started
    expected = model(x)
    same = torch.allclose(out, expected, rtol=1e-5, atol=1e-6)

    _section(f"loom.compile(TinyMLP(), backend={backend!r})")
    print(f"first call (capture + compile): {first_call * 1e3:.1f} ms; matches eager: {same}")
    stats = loom.stats()
    print(f"graphs: {stats['graphs']}  graph breaks: {stats['graph_breaks']}  frames compiled: {stats['frames_compiled']}")
    for translation, seconds in compiled._loom_compiler.history:
        for graph in translation.graphs:
            _section(f"graph {graph.name}: {graph.op_count} ops, captured in {seconds * 1e3:.1f} ms")
            print(graph.graph_module.code.strip())
        _section(f"guards ({len(translation.guards)})")
        for guard in translation.guards:
            print(f"  {guard}")
        for item in translation.breaks:
            _section("graph break")
            print(item)

    repeat = 50 if quick else 500
    tiny = loom.compile(sin_plus_one)
    t = torch.randn(16)
    tiny(t)
    eager_us = _per_call_us(lambda: torch.sin(t) + 1, repeat)
    loom_us = _per_call_us(lambda: tiny(t), repeat)
    torch_compiled = torch.compile(sin_plus_one, backend="eager")
    torch_compiled(t)
    torch_us = _per_call_us(lambda: torch_compiled(t), repeat)
    _section("per-call overhead of a tiny compiled function (sin(x) + 1 on 16 elements, thread CPU time)")
    print(f"eager {eager_us:7.2f} us | loom {loom_us:7.2f} us (+{loom_us - eager_us:.2f}) | "
          f"torch.compile {torch_us:7.2f} us (+{torch_us - eager_us:.2f})")
    if torch_us > eager_us:
        print(f"loom's overhead is {(loom_us - eager_us) / (torch_us - eager_us):.2f}x torch.compile's")
    return 0 if same else 1
