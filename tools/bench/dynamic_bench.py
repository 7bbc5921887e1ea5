#!/usr/bin/env python3
"""Dynamic shapes: total time of 50 calls with random batch sizes and sequence lengths, loom against
torch.compile (both with the eager backend and their default dynamic policy), in one run.

Each compiler runs in a fresh process (cold caches, the same warm-up) on the same shape sequence;
reported: total thread CPU time of the 50 calls (compiles included), how many compiles each needed,
and the ratio. Sizes: batch 1..16, sequence 8..128.

    .venv/bin/python tools/bench/dynamic_bench.py [--calls 50] [--models mlp,transformer,gpt2]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent


def shapes(model: str, calls: int) -> list[tuple[int, ...]]:
    rng = random.Random(0)
    if model == "mlp":
        return [(rng.randint(1, 16), 64) for _ in range(calls)]
    return [(rng.randint(1, 16), rng.randint(8, 32 if model == "transformer" else 64)) for _ in range(calls)]


def child(compiler: str, model_name: str, calls: int) -> dict[str, float]:
    import torch

    sys.path.insert(0, str(HERE))
    from bench_models import MODELS

    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = MODELS[model_name][0]()
    warm = torch.randn(8)
    if compiler == "loom":
        import loom

        loom.compile(lambda t: torch.sin(t) + 1, backend="eager")(warm)
        loom.reset()  # count only the model's compiles (caches that outlive a reset stay warm, as for torch)
        compiled = loom.compile(model, backend="eager")
    else:
        import torch._dynamo

        torch.compile(lambda t: torch.sin(t) + 1, backend="eager")(warm)
        torch._dynamo.reset()
        counter = torch._dynamo.utils.counters
        counter.clear()
        compiled = torch.compile(model, backend="eager")
    inputs = []
    for shape in shapes(model_name, calls):
        if model_name == "mlp":
            inputs.append(torch.randn(*shape))
        else:
            inputs.append(torch.randint(0, 64, shape))
    started = time.thread_time()
    with torch.no_grad():
        for x in inputs:
            compiled(x)
    elapsed = time.thread_time() - started
    if compiler == "loom":
        compiles = loom.stats()["frames_compiled"]
    else:
        compiles = sum(torch._dynamo.utils.counters["stats"].get(k, 0) for k in ("unique_graphs",))
    return {"seconds": elapsed, "compiles": compiles}


def run_child(compiler: str, model: str, calls: int) -> dict[str, float]:
    out = subprocess.run([sys.executable, __file__, "--child", compiler, model, str(calls)], capture_output=True,
                         text=True, env={**os.environ, "PYTHONWARNINGS": "ignore"})
    if out.returncode != 0:
        raise SystemExit(f"{compiler} {model} failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--calls", type=int, default=50)
    parser.add_argument("--models", default="mlp,transformer,gpt2")
    parser.add_argument("--child", nargs=3, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(child(args.child[0], args.child[1], int(args.child[2]))))
        return
    print(f"{args.calls} calls with random shapes, total thread CPU time (compiles included), eager backend")
    header = f"{'model':<12} {'loom':>16} {'torch.compile':>18} {'loom/torch':>11}"
    print(header)
    print("-" * len(header))
    for name in args.models.split(","):
        loom_run = run_child("loom", name, args.calls)
        torch_run = run_child("torch", name, args.calls)
        print(f"{name:<12} {loom_run['seconds']:7.2f} s ({loom_run['compiles']:.0f} compiles) "
              f"{torch_run['seconds']:7.2f} s ({torch_run['compiles']:.0f} graphs) "
              f"{loom_run['seconds'] / torch_run['seconds']:10.2f}x")


if __name__ == "__main__":
    main()
