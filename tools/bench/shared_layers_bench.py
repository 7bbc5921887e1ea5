#!/usr/bin/env python3
"""A 32-layer model with a graph break inside every block: loom against torch.compile, in one run.

After the break each block's ``forward`` runs as a frame of its own. Both compilers should compile it
once for all 32 instances (modules guarded by type and structure, parameters as graph inputs); with
modules guarded by identity loom compiled it per layer, up to the recompile limit, and ran the rest
eagerly. Each compiler runs in a fresh process (cold caches alike, after the same warm-up compile of
an unrelated function, the model run eagerly once first); both use ``backend="eager"``.

    .venv/bin/python tools/bench/shared_layers_bench.py [--layers 32] [--reps 3]

Rows: the first call (capture + compile + one run; thread CPU and wall), the steady call after it,
graphs, graph breaks, recompiles, and the cache entries of the block's ``forward`` code.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from typing import Any


def build(layers: int) -> tuple[Any, Any, Any]:
    import torch
    from torch import nn

    class Block(nn.Module):
        def __init__(self, d: int) -> None:
            super().__init__()
            self.norm = nn.LayerNorm(d)
            self.lin = nn.Linear(d, d)
            self.act = nn.GELU()

        def forward(self, x: Any) -> Any:
            h = self.act(self.lin(self.norm(x)))
            h = opaque(h)  # noqa: F821  (bound below, per compiler: a call it runs natively)
            return x + h * 0.5

    class Deep(nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.layers = nn.ModuleList([Block(32) for _ in range(layers)])

        def forward(self, x: Any) -> Any:
            for layer in self.layers:
                x = layer(x)
            return x

    torch.manual_seed(0)
    return Deep().eval(), torch.randn(4, 32), Block


def child(compiler: str, layers: int) -> dict[str, Any]:
    import warnings

    import torch

    torch.set_num_threads(1)
    model, x, block_cls = build(layers)

    def warm(t: Any) -> Any:
        return torch.cos(t) * 2

    def identity(t: Any) -> Any:
        return t

    if compiler == "loom":
        import loom
        import loom_framehook as framehook

        build.__globals__["opaque"] = loom.disable(identity)
        loom.compile(warm, backend="eager")(x)
        loom.reset()
        compiled = loom.compile(model, backend="eager")
    else:
        import torch._dynamo
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list
        from torch._dynamo.utils import counters

        build.__globals__["opaque"] = torch.compiler.disable(identity)
        torch.compile(warm, backend="eager")(x)
        torch._dynamo.reset()
        counters.clear()
        compiled = torch.compile(model, backend="eager")
    with torch.no_grad():
        expected = model(x)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            cpu, wall = time.thread_time(), time.perf_counter()
            out = compiled(x)
            cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
            torch.testing.assert_close(out, expected)
            steady = min(_timed(compiled, x) for _ in range(20))
    if compiler == "loom":
        stats = loom.stats()
        counts = {"graphs": stats["graphs"], "breaks": stats["graph_breaks"], "recompiles": stats["recompiles"],
                  "block entries": len(framehook.entries(block_cls.forward.__code__))}
    else:
        counts = {"graphs": counters["stats"]["unique_graphs"], "breaks": sum(counters["graph_break"].values()),
                  "recompiles": sum(counters["recompiles"].values()) if "recompiles" in counters else 0,
                  "block entries": len(_debug_get_cache_entry_list(block_cls.forward.__code__))}
    return {"first cpu ms": cpu * 1e3, "first wall ms": wall * 1e3, "steady us": steady * 1e6, **counts}


def _timed(fn: Any, x: Any) -> float:
    started = time.perf_counter()
    fn(x)
    return time.perf_counter() - started


def run_child(compiler: str, layers: int) -> dict[str, Any]:
    out = subprocess.run([sys.executable, __file__, "--child", compiler, "--layers", str(layers)],
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--layers", type=int, default=32)
    parser.add_argument("--reps", type=int, default=3, help="fresh processes per compiler (best of)")
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child, args.layers)))
        return 0
    results: dict[str, dict[str, Any]] = {}
    for compiler in ("loom", "torch"):
        runs = [run_child(compiler, args.layers) for _ in range(args.reps)]
        best = min(runs, key=lambda r: r["first cpu ms"])
        best["steady us"] = min(r["steady us"] for r in runs)
        results[compiler] = best
    import torch

    print(f"\n{args.layers}-layer model, a graph break inside every block: loom vs torch.compile "
          f"(backend='eager'), torch {torch.__version__}, Python {sys.version.split()[0]}, best of {args.reps}\n")
    rows = [("first call (CPU)", "first cpu ms", "ms"), ("first call (wall)", "first wall ms", "ms"),
            ("steady call", "steady us", "us"), ("graphs", "graphs", ""), ("graph breaks", "breaks", ""),
            ("recompiles", "recompiles", ""), ("cache entries of Block.forward", "block entries", "")]
    print(f"{'measurement':32}{'loom':>14}{'torch.compile':>16}{'loom/torch':>12}")
    print("-" * 74)
    for label, key, unit in rows:
        a, b = results["loom"][key], results["torch"][key]
        ratio = f"{a / b:.3f}" if unit and b else ""
        cells = [f"{v:,.2f} {unit}" if unit else str(v) for v in (a, b)]
        print(f"{label:32}{cells[0]:>14}{cells[1]:>16}{ratio:>12}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
