#!/usr/bin/env python3
"""The model zoo (tools/bench/zoo_models.py) under loom and torch.compile, side by side.

For each model: graphs, graph breaks, recompiles on an identical second call and the first call's time
(translation + backend + the run), under loom and under torch.compile with the same backend
(``aot_eager`` unless told), and the ratio loom/torch.compile of the first calls. ``--reasons`` prints
loom's break reasons per model (from ``loom.explain``). Both compilers are warmed up on a small function
first, so neither pays the one-off imports inside a model's time.

    .venv-py3.12/bin/python tools/bench/model_zoo_bench.py [--backend aot_eager] [--inductor] [-k swin]
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import torch

sys.path.insert(0, str(Path(__file__).resolve().parent))
from zoo_models import FULL_SIZE, MODELS, first_tensor, unavailable_reason


def _run_loom(model: torch.nn.Module, args: tuple, kwargs: dict, backend: str) -> dict[str, Any]:
    import loom
    loom.reset()
    compiled = loom.compile(model, backend=backend)
    started = time.perf_counter()
    first = compiled(*args, **kwargs)
    seconds = time.perf_counter() - started
    after_first = loom.stats()
    compiled(*args, **kwargs)
    after_second = loom.stats()
    return {"graphs": after_first["graphs"], "breaks": after_first["graph_breaks"],
            "recompiles": after_second["frames_compiled"] - after_first["frames_compiled"],
            "seconds": seconds, "output": first_tensor(first)}


def _run_torch(model: torch.nn.Module, args: tuple, kwargs: dict, backend: str) -> dict[str, Any]:
    import torch._dynamo
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    calls = [0]
    inner = torch._dynamo.lookup_backend(backend) if isinstance(backend, str) else backend

    def counting(gm: torch.fx.GraphModule, example_inputs: list) -> Any:
        calls[0] += 1
        return inner(gm, example_inputs)

    compiled = torch.compile(model, backend=counting)
    started = time.perf_counter()
    first = compiled(*args, **kwargs)
    seconds = time.perf_counter() - started
    graphs = calls[0]
    breaks = sum(counters["graph_break"].values())
    compiled(*args, **kwargs)
    return {"graphs": graphs, "breaks": breaks, "recompiles": calls[0] - graphs, "seconds": seconds,
            "output": first_tensor(first)}


def _warm_up(backend: str, inductor: bool) -> None:
    import loom

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x @ x) + 1

    x = torch.randn(4, 4)
    loom.compile(f, backend=backend)(x)
    torch.compile(f, backend=backend)(x)
    if inductor:
        torch.compile(f)(x)
    loom.reset()
    torch._dynamo.reset()


def _reasons(model: torch.nn.Module, args: tuple, kwargs: dict, backend: str) -> list[str]:
    import loom
    loom.reset()
    report = loom.explain(model, backend=backend)(*args, **kwargs)
    counts = Counter(f"{b.what}: {b.why}"[:160] + f"  @ {b.where}" for b in report.breaks)
    return [f"{n:3d}x {text}" for text, n in counts.most_common()]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="aot_eager", help="backend for both compilers (default aot_eager)")
    parser.add_argument("--inductor", action="store_true", help="also time torch.compile's default backend")
    parser.add_argument("--reasons", action="store_true", help="print loom's break reasons per model")
    parser.add_argument("--full", action="store_true", help="the stock torchvision configurations instead (slow)")
    parser.add_argument("-k", default="", help="only models whose name contains this")
    options = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return
    _warm_up(options.backend, options.inductor)
    header = (f"{'model':22s} {'loom g/b/rc':>12s} {'loom s':>7s}  {'torch g/b/rc':>12s} {'torch s':>7s}"
              f"  {'ratio':>6s}  {'same':>4s}" + ("  inductor s  ratio" if options.inductor else ""))
    print(f"backend {options.backend}, torch {torch.__version__}, Python {sys.version.split()[0]}")
    print(header)
    print("-" * len(header))
    ratios = []
    for name, entry in (FULL_SIZE if options.full else MODELS).items():
        if options.k not in name:
            continue
        torch.manual_seed(0)
        model = entry.build().eval()
        args, kwargs = entry.inputs()
        with torch.no_grad():
            expected = first_tensor(model(*args, **kwargs))
            mine = _run_loom(model, args, kwargs, options.backend)
            theirs = _run_torch(model, args, kwargs, options.backend)
            same = torch.allclose(mine["output"], expected, rtol=1e-4, atol=1e-4)
            ratio = mine["seconds"] / theirs["seconds"]
            ratios.append(ratio)
            line = (f"{name:22s} {mine['graphs']:>4d}/{mine['breaks']:>3d}/{mine['recompiles']:>3d} "
                    f"{mine['seconds']:7.2f}  {theirs['graphs']:>4d}/{theirs['breaks']:>3d}/{theirs['recompiles']:>3d} "
                    f"{theirs['seconds']:7.2f}  {ratio:6.2f}  {'yes' if same else 'NO':>4s}")
            if options.inductor:
                inductor = _run_torch(model, args, kwargs, "inductor")
                line += f"  {inductor['seconds']:10.2f}  {mine['seconds'] / inductor['seconds']:5.2f}"
            print(line, flush=True)
            if options.reasons and mine["breaks"]:
                for text in _reasons(model, args, kwargs, options.backend):
                    print("      " + text)
    if ratios:
        print(f"first call loom/torch.compile: max {max(ratios):.2f}, geometric mean "
              f"{torch.tensor(ratios).log().mean().exp().item():.2f}")


if __name__ == "__main__":
    main()
