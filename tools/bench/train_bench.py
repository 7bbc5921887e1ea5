#!/usr/bin/env python3
"""A whole training step (forward, backward, Adam update, zero_grad) compiled by loom and by torch.compile.

    .venv/bin/python tools/bench/train_bench.py                  # both models, 30 timed steps
    .venv/bin/python tools/bench/train_bench.py --models gpt --steps 50
    .venv/bin/python tools/bench/train_bench.py --models deep      # 50 Linear(8, 8) layers: 100 parameters
    .venv/bin/python tools/bench/train_bench.py --backend c        # loom's C kernels beside inductor's

By default both compilers use the ``aot_eager`` backend (AOTAutograd, ATen graphs run as they are), so the
figures compare capture and the Python around the graphs, not kernels; ``--backend c`` compiles loom's
graphs with its C code generator and torch.compile's with inductor (its CPU default). Per model it prints:

- first call: the first compiled step (capture, guards, AOTAutograd, the step itself), seconds;
- steady step: the median of ``--steps`` later steps, milliseconds;
- graphs and graph breaks of one steady step (loom: ``loom.explain`` of a further step; torch.compile:
  its counters over the whole run);
- the largest difference of a parameter from eager's after the same steps.

loom runs the step twice: with ``optimizer.step()`` as written (torch's ``record_function`` profiling
wrapper around every optimizer's ``step`` is a graph break in loom for now, so the update runs
natively) and with the wrapper bypassed (``type(opt).step.__wrapped__``: the update is a graph).
Ratios are against eager (steady step) and against torch.compile (both columns). Each configuration
starts from the same seed, and the parameters after the timed steps are checked against eager's.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import torch
import torch._dynamo
import torch.nn.functional as F

import loom
from loom.examples.models import TinyGPT, TinyMLP

MODELS: dict[str, Callable[[], tuple[torch.nn.Module, Callable[[], tuple[Any, ...]], Callable[..., Any]]]] = {}


def _mlp():
    model = TinyMLP(width=256, depth=4)
    batch = torch.randn(64, 256)
    return model, lambda: (batch,), lambda m, x: (m(x) - x).pow(2).mean()


def _gpt():
    model = TinyGPT(vocab=256, dim=128, heads=4, layers=4, context=64)
    ids = torch.randint(0, 256, (8, 64))

    def loss(m, ids):
        logits = m(ids)
        return F.cross_entropy(logits[:, :-1].reshape(-1, 256), ids[:, 1:].reshape(-1))

    return model, lambda: (ids,), loss


def _deep():
    """Many small layers: the per-parameter Python of backward, the update and ``zero_grad`` dominates."""
    layers = []
    for _ in range(50):
        layers += [torch.nn.Linear(8, 8), torch.nn.Tanh()]
    model = torch.nn.Sequential(*layers)
    batch = torch.randn(16, 8)
    return model, lambda: (batch,), lambda m, x: (m(x) - x).pow(2).mean()


MODELS = {"mlp": _mlp, "gpt": _gpt, "deep": _deep}


def make_step(model, loss_fn, optimizer, bypass_profiler: bool):
    update = type(optimizer).step.__wrapped__ if bypass_profiler else None

    def train_step(*batch):
        loss = loss_fn(model, *batch)
        value = loss.detach()
        loss.backward()
        if update is not None:
            update(optimizer)
        else:
            optimizer.step()
        optimizer.zero_grad()
        return value

    return train_step


def run(config: str, name: str, steps: int, backend: str = "aot_eager") -> dict[str, Any]:
    torch.manual_seed(0)
    model, batch, loss_fn = MODELS[name]()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3, foreach=True)
    plain = step = make_step(model, loss_fn, optimizer, bypass_profiler=config == "loom (update as a graph)")
    graphs = breaks = None
    if config.startswith("loom"):
        loom.reset()
        step = loom.compile(step, backend=backend)
    elif config == "torch.compile":
        torch._dynamo.reset()
        torch._dynamo.utils.counters.clear()
        step = torch.compile(step, backend="inductor" if backend == "c" else backend)
    started = time.perf_counter()
    step(*batch())
    first = time.perf_counter() - started
    times = []
    for _ in range(steps):
        started = time.perf_counter()
        step(*batch())
        times.append(time.perf_counter() - started)
    params = [p.detach().clone() for p in model.parameters()]
    if config.startswith("loom"):
        report = loom.explain(plain, backend=backend)(*batch())  # one more step, as the steady ones
        graphs, breaks = report.graph_count, report.graph_break_count
    elif config == "torch.compile":
        counters = torch._dynamo.utils.counters
        graphs = counters["stats"]["unique_graphs"]
        breaks = sum(counters["graph_break"].values())
    return {"first": first, "steady": statistics.median(times), "graphs": graphs, "breaks": breaks, "params": params}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--steps", type=int, default=30)
    parser.add_argument("--backend", default="aot_eager", choices=["aot_eager", "c"],
                        help="loom's backend (torch.compile: inductor for c, else the same)")
    args = parser.parse_args()
    configs = ["eager", "torch.compile", "loom (optimizer.step)", "loom (update as a graph)"]
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, backend {args.backend}, Adam(foreach=True), "
          f"{args.steps} timed steps")
    for name in args.models:
        results = {config: run(config, name, args.steps, args.backend) for config in configs}
        eager, reference = results["eager"], results["torch.compile"]
        print(f"\n{name}")
        print(f"  {'':26} {'first call':>11} {'steady step':>12} {'vs eager':>9} {'first vs tc':>12} "
              f"{'steady vs tc':>13} {'graphs':>7} {'breaks':>7}  max |param - eager's|")
        for config, r in results.items():
            diff = max(float((p - q).abs().max()) for p, q in zip(r["params"], eager["params"]))
            print(f"  {config:26} {r['first']:10.3f}s {r['steady'] * 1e3:10.2f}ms {r['steady'] / eager['steady']:8.2f}x "
                  f"{r['first'] / reference['first']:11.2f}x {r['steady'] / reference['steady']:12.2f}x "
                  f"{r['graphs'] if r['graphs'] is not None else '-':>7} {r['breaks'] if r['breaks'] is not None else '-':>7}"
                  f"  {diff:.2e}")


if __name__ == "__main__":
    main()
