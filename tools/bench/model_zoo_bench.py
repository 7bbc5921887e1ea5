#!/usr/bin/env python3
"""The model zoo (tools/bench/zoo_models.py) under loom and torch.compile, side by side.

For each model: graphs, graph breaks, recompiles on an identical second call and the first call's time
(translation + backend + the run), under loom and under torch.compile with the same backend
(``aot_eager`` unless told), and the ratio loom/torch.compile of the first calls. ``--reasons`` prints
loom's break reasons per model (from ``loom.explain``). Both compilers are warmed up on a small function
first, so neither pays the one-off imports inside a model's time, and FakeTensorMode's dispatch cache (shared
by both in one process) is emptied before each first call, so neither is served the other's fake results.

    .venv-py3.12/bin/python tools/bench/model_zoo_bench.py [--backend aot_eager] [--torch-backend inductor] [-k swin]
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


def _timed_backend(backend: Any, lookup: Any) -> tuple[Any, list[float]]:
    """``backend`` wrapped to count its calls and add up its seconds: [calls, seconds]."""
    inner = lookup(backend) if isinstance(backend, str) else backend
    spent = [0, 0.0]

    def timed(gm: torch.fx.GraphModule, example_inputs: list) -> Any:
        started = time.perf_counter()
        try:
            return inner(gm, example_inputs)
        finally:
            spent[0] += 1
            spent[1] += time.perf_counter() - started

    return timed, spent


def _forget_shared_caches() -> None:
    """Empty the caches both compilers fill and read in one process: FakeTensorMode's dispatch cache (a class
    attribute) would hand the second compiler of a model the fake results of the first one's ops."""
    from torch._subclasses.fake_tensor import FakeTensorMode

    FakeTensorMode.cache_clear()


def _run_loom(model: torch.nn.Module, args: tuple, kwargs: dict, backend: str) -> dict[str, Any]:
    import loom
    import loom_backends
    loom.reset()
    _forget_shared_caches()
    timed, spent = _timed_backend(backend, loom_backends.get)
    compiled = loom.compile(model, backend=timed)
    started = time.perf_counter()
    first = compiled(*args, **kwargs)
    seconds = time.perf_counter() - started
    after_first = loom.stats()
    compiled(*args, **kwargs)
    after_second = loom.stats()
    return {"graphs": after_first["graphs"], "breaks": after_first["graph_breaks"],
            "recompiles": after_second["frames_compiled"] - after_first["frames_compiled"],
            "seconds": seconds, "backend": spent[1], "output": first_tensor(first)}


def _run_torch(model: torch.nn.Module, args: tuple, kwargs: dict, backend: str) -> dict[str, Any]:
    import torch._dynamo
    from torch._dynamo.utils import counters
    torch._dynamo.reset()
    counters.clear()
    _forget_shared_caches()
    timed, spent = _timed_backend(backend, torch._dynamo.lookup_backend)
    compiled = torch.compile(model, backend=timed)
    started = time.perf_counter()
    first = compiled(*args, **kwargs)
    seconds = time.perf_counter() - started
    graphs = spent[0]
    breaks = sum(counters["graph_break"].values())
    compiled(*args, **kwargs)
    return {"graphs": graphs, "breaks": breaks, "recompiles": spent[0] - graphs, "seconds": seconds,
            "backend": spent[1], "output": first_tensor(first)}


def _warm_up(backend: str, torch_backend: str, inductor: bool) -> None:
    import loom

    def f(x: torch.Tensor) -> torch.Tensor:
        return torch.nn.functional.gelu(x @ x) + 1

    x = torch.randn(4, 4)
    loom.compile(f, backend=backend)(x)
    torch.compile(f, backend=torch_backend)(x)
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


def _best(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """The run with the fastest first call (the machine is shared: the least disturbed one)."""
    return min(runs, key=lambda run: run["seconds"])


def _eager_seconds(model: torch.nn.Module, args: tuple, kwargs: dict) -> float:
    model(*args, **kwargs)
    started = time.perf_counter()
    model(*args, **kwargs)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", default="aot_eager", help="backend for both compilers (default aot_eager)")
    parser.add_argument("--torch-backend", default=None,
                        help="torch.compile's backend when it differs from loom's (--backend c --torch-backend inductor: "
                             "both compilers' defaults)")
    parser.add_argument("--inductor", action="store_true", help="also time torch.compile's default backend")
    parser.add_argument("--reasons", action="store_true", help="print loom's break reasons per model")
    parser.add_argument("--full", action="store_true", help="the stock torchvision configurations instead (slow)")
    parser.add_argument("--reps", type=int, default=1, help="first calls per compiler, alternating; the fastest counts")
    parser.add_argument("-k", default="", help="only models whose name contains this")
    options = parser.parse_args()
    reason = unavailable_reason()
    if reason:
        print(f"skipped: {reason}")
        return
    # One thread: on a shared machine, intra-op threads waiting on each other turn others' load into
    # seconds of noise in a model's run; both compilers run the same kernels either way.
    torch.set_num_threads(1)
    torch_backend = options.torch_backend or options.backend
    _warm_up(options.backend, torch_backend, options.inductor)
    print(f"backend {options.backend} (torch.compile: {torch_backend}), torch {torch.__version__}, Python {sys.version.split()[0]}; g/b/rc: graphs, "
          "breaks, compiles on an identical second call; first: the first call (s); capture: the first call less "
          "the backend's seconds (it includes one run of the model: eager, an eager call's seconds)")
    header = (f"{'model':22s} {'loom g/b/rc':>11s} {'first':>6s} {'capture':>7s}  {'torch g/b/rc':>12s} {'first':>6s} "
              f"{'capture':>7s}  {'first':>5s} {'capture':>7s} {'same':>4s} {'eager':>6s}"
              + ("  inductor first  ratio" if options.inductor else ""))
    print(" " * 68 + "loom/torch.compile")
    print(header)
    print("-" * len(header))
    ratios, capture_ratios = [], []
    for name, entry in (FULL_SIZE if options.full else MODELS).items():
        if options.k not in name:
            continue
        torch.manual_seed(0)
        model = entry.build().eval()
        args, kwargs = entry.inputs()
        with torch.no_grad():
            expected = first_tensor(model(*args, **kwargs))
            eager = _eager_seconds(model, args, kwargs)
            mine_runs, their_runs = [], []
            for _ in range(options.reps):
                mine_runs.append(_run_loom(model, args, kwargs, options.backend))
                their_runs.append(_run_torch(model, args, kwargs, torch_backend))
            mine, theirs = _best(mine_runs), _best(their_runs)
            for run in (mine, theirs):
                run["capture"] = run["seconds"] - run["backend"]
            same = torch.allclose(mine["output"], expected, rtol=1e-4, atol=1e-4)
            ratio, capture_ratio = mine["seconds"] / theirs["seconds"], mine["capture"] / theirs["capture"]
            ratios.append(ratio)
            capture_ratios.append(capture_ratio)
            line = (f"{name:22s} {mine['graphs']:>3d}/{mine['breaks']:>3d}/{mine['recompiles']:>3d} "
                    f"{mine['seconds']:6.2f} {mine['capture']:7.2f}  "
                    f"{theirs['graphs']:>4d}/{theirs['breaks']:>3d}/{theirs['recompiles']:>3d} "
                    f"{theirs['seconds']:6.2f} {theirs['capture']:7.2f}  {ratio:5.2f} {capture_ratio:7.2f} "
                    f"{'yes' if same else 'NO':>4s} {eager:6.3f}")
            if options.inductor:
                inductor = _run_torch(model, args, kwargs, "inductor")
                line += f"  {inductor['seconds']:14.2f}  {mine['seconds'] / inductor['seconds']:5.2f}"
            print(line, flush=True)
            if options.reasons and mine["breaks"]:
                for text in _reasons(model, args, kwargs, options.backend):
                    print("      " + text)
    if ratios:
        def geomean(values: list[float]) -> float:
            return torch.tensor(values).log().mean().exp().item()
        print(f"loom/torch.compile: first call max {max(ratios):.2f}, geometric mean {geomean(ratios):.2f}; "
              f"capture max {max(capture_ratios):.2f}, geometric mean {geomean(capture_ratios):.2f}")


if __name__ == "__main__":
    main()
