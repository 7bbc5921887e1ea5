#!/usr/bin/env python3
"""Cold translation time: loom's translator against torch.compile(backend="eager")'s first call.

Each measurement runs in a fresh process (PyTorch warms caches that outlive torch._dynamo.reset(), see
shared/notes/benchmarking.md), after the same warm-up: the measured compiler first compiles an
unrelated tiny function. Reported: the fastest of ``--repeat`` runs, per-thread CPU time.

    .venv/bin/python tools/bench/translate_bench.py [--repeat 3] [--models mlp,transformer,gpt2]

Columns:
  loom translate   loom_symbolic.translate_function(model.forward, ...) alone (no backend, no hook)
  loom first call  loom.compile(model)(x): hook + translation + eager backend + guards + run
  torch first call torch.compile(model, backend="eager")(x)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
MODES = ("loom_translate", "loom_compile", "torch_compile")


def _tiny(x):
    import torch

    return torch.sin(x) + 1


def measure(mode: str, model_name: str) -> dict[str, float]:
    """Run inside the child process: warm up, then time one cold first call."""
    import torch

    sys.path.insert(0, str(HERE))
    from bench_models import MODELS

    torch.set_num_threads(1)
    torch.manual_seed(0)
    make_model, make_input = MODELS[model_name]
    model, example = make_model(), make_input()
    warm = torch.randn(8)
    if mode == "loom_translate":
        from loom_symbolic import translate_function

        translate_function(_tiny, warm)
        run = lambda: translate_function(type(model).forward, model, example)  # noqa: E731
    elif mode == "loom_compile":
        import loom

        loom.compile(_tiny, backend="eager")(warm)
        compiled = loom.compile(model, backend="eager")
        run = lambda: compiled(example)  # noqa: E731
    else:
        torch.compile(_tiny, backend="eager")(warm)
        compiled = torch.compile(model, backend="eager")
        run = lambda: compiled(example)  # noqa: E731
    wall, cpu = time.perf_counter(), time.thread_time()
    result = run()
    cpu, wall = time.thread_time() - cpu, time.perf_counter() - wall
    if mode == "loom_translate" and (result.code is None or result.breaks):
        raise SystemExit(f"{model_name}: translation did not capture one graph: {result.breaks}")
    return {"wall": wall, "cpu": cpu}


def run_child(mode: str, model_name: str) -> dict[str, float]:
    out = subprocess.run(
        [sys.executable, __file__, "--child", mode, model_name],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONWARNINGS": "ignore"},
    )
    if out.returncode != 0:
        raise SystemExit(f"child {mode} {model_name} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--models", default="mlp,transformer,gpt2")
    parser.add_argument("--child", nargs=2, metavar=("MODE", "MODEL"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(*args.child)))
        return
    models = args.models.split(",")
    print(f"cold first call, fastest of {args.repeat} fresh processes, thread CPU time (wall in brackets)")
    header = f"{'model':<12} {'loom translate':>20} {'loom first call':>20} {'torch first call':>20} {'translate/torch':>16} {'loom/torch':>11}"
    print(header)
    print("-" * len(header))
    for name in models:
        best: dict[str, dict[str, float]] = {}
        for _ in range(args.repeat):
            for mode in MODES:  # interleaved, so machine noise hits every column alike
                sample = run_child(mode, name)
                if mode not in best or sample["cpu"] < best[mode]["cpu"]:
                    best[mode] = sample
        cells = [f"{best[m]['cpu'] * 1e3:8.1f} ms [{best[m]['wall'] * 1e3:6.0f}]" for m in MODES]
        torch_cpu = best["torch_compile"]["cpu"]
        print(f"{name:<12} {cells[0]:>20} {cells[1]:>20} {cells[2]:>20} "
              f"{best['loom_translate']['cpu'] / torch_cpu:>15.2f}x {best['loom_compile']['cpu'] / torch_cpu:>10.2f}x")


if __name__ == "__main__":
    main()
