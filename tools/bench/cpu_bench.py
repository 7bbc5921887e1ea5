#!/usr/bin/env python3
"""loom's CPU code generator against eager PyTorch and torch.compile (inductor), in one run.

    .venv/bin/python tools/bench/cpu_bench.py                       # every workload, 1 and 2 threads
    .venv/bin/python tools/bench/cpu_bench.py --quick               # the pointwise chain, 1 thread
    .venv/bin/python tools/bench/cpu_bench.py --workloads mlp gpt2 --loom-backend aot_eager

Workloads (``cpu_workloads.py``): a pointwise chain, a softmax/norm block, an MLP, a transformer block,
GPT-2 tiny (transformers, random weights), a conv net with batch norm and an embedding lookup (its indices
checked); each as steady-state inference
(``torch.no_grad()``, eval mode) and as a training step (forward, ``sum().backward()``, train mode).

Every measurement runs in a process of its own, one after another (never two at once):

- **first call, empty caches**: per workload and compiler, a fresh process with fresh, empty
  ``TORCHINDUCTOR_CACHE_DIR`` and ``LOOM_CACHE_DIR``; ``torch`` and ``loom`` imported and the model run
  once eagerly, then the time from ``torch.compile(model)`` / ``loom.compile(model)`` to the first
  inference result, then to the first training step's gradients (after the inference graphs compiled
  in that process), as a program sees them. Both include importing ``torch._dynamo`` (0.5-3 s here):
  ``torch.compile`` imports it, and loom's first translation does through ``FakeTensorMode``.
- **first call, warm caches**: the same in a second process over the caches the first one filled.
- **steady state**: per workload and thread count, one process compiles with both compilers (caches
  warm by then), warms eager and both compiled versions up together, checks their answers against
  eager's, then times them in interleaved rounds (the order rotating each round), each round a batch
  of calls lasting ~``--round-ms``; the figure is the fastest round's time per call (the median is in
  the JSON). Wall time by default; ``--clock cpu`` takes the CPU time of the process instead (every
  thread's, OpenMP's workers included), steadier on a shared, loaded machine: another process holding
  the core stalls the wall clock, not this one's CPU time.

Printed: per thread count, time per call of each, the speed-ups of inductor and loom over eager and
loom's time over inductor's, their geomeans; then the first calls and loom/inductor ratios. Raw results
go to ``tools/bench/out/cpu_bench.json``. The machine is shared and noisy: quote ratios from one run.

``--loom-backend`` picks loom's backend (default ``c``; ``aot_eager`` where ``c`` is not registered, so
the harness runs before the C generator exists: then loom's column shows capture overhead, not kernels).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tools" / "bench" / "out"
IMPLS = ("eager", "inductor", "loom")
MODES = ("infer", "train")


# ----------------------------------------------------------------------------------------- children


def _setup(threads: int) -> None:
    import torch

    torch.set_num_threads(threads)
    sys.path.insert(0, str(Path(__file__).parent))


def _compile(impl: str, model: Any, loom_backend: str) -> Any:
    import torch

    if impl == "eager":
        return model
    if impl == "inductor":
        return torch.compile(model)
    import loom

    return loom.compile(model, backend=loom_backend)


def _output(value: Any) -> Any:
    return getattr(value, "logits", value)


def _runner(fn: Any, model: Any, inputs: tuple[Any, ...], mode: str) -> Callable[[], Any]:
    """One inference call, or one training step (forward, backward of the output's sum, grads cleared)."""
    import torch

    params = [p for p in model.parameters() if p.requires_grad]
    grads_of = [t for t in inputs if getattr(t, "requires_grad", False)] + params

    if mode == "infer":

        def infer() -> Any:
            with torch.no_grad():
                return _output(fn(*inputs))

        return infer

    def train() -> Any:
        for t in grads_of:
            t.grad = None
        out = _output(fn(*inputs))
        out.float().sum().backward()
        return [out.detach()] + [t.grad for t in grads_of]

    return train


def _max_error(got: Any, want: Any) -> float:
    got = got if isinstance(got, list) else [got]
    want = want if isinstance(want, list) else [want]
    worst = 0.0
    for g, w in zip(got, want):
        if g is None or w is None:
            worst = max(worst, 0.0 if g is w else math.inf)
            continue
        scale = max(1.0, float(w.abs().max()))
        worst = max(worst, float((g.float() - w.float()).abs().max()) / scale)
    return worst


def child_first_call(workload: str, impl: str, loom_backend: str) -> dict[str, Any]:
    """The first compiled inference call, then the first compiled training step, in this fresh process."""
    _setup(1)
    import cpu_workloads

    if impl == "loom":
        import loom  # noqa: F401 - a program imports it at its top; torch.compile comes with torch
    result: dict[str, Any] = {}
    for mode in MODES:
        model, inputs = cpu_workloads.make(workload, train=mode == "train")
        expected = _runner(model, model, inputs, mode)()  # the model run once eagerly: common warm-up
        started = time.perf_counter()
        compiled = _compile(impl, model, loom_backend)
        got = _runner(compiled, model, inputs, mode)()
        result[f"{mode}_s"] = time.perf_counter() - started
        result[f"{mode}_err"] = _max_error(got, expected)
    return result


def child_steady(workload: str, threads: int, loom_backend: str, rounds: int, round_ms: float,
                 clock: str = "wall") -> dict[str, Any]:  # fmt: skip
    """Eager, inductor and loom timed in interleaved rounds after a common warm-up, both modes."""
    _setup(threads)
    import cpu_workloads

    result: dict[str, Any] = {}
    for mode in MODES:
        model, inputs = cpu_workloads.make(workload, train=mode == "train")
        fns = {impl: _runner(_compile(impl, model, loom_backend), model, inputs, mode) for impl in IMPLS}
        expected = fns["eager"]()
        errors = {impl: _max_error(fn(), expected) for impl, fn in fns.items() if impl != "eager"}
        for _ in range(3):  # the common warm-up: every version, interleaved
            for fn in fns.values():
                fn()
        timer = time.process_time if clock == "cpu" else time.perf_counter
        once = min(_time_calls(fns["eager"], 1, timer) for _ in range(3))
        number = max(1, int(round_ms / 1e3 / max(once, 1e-6)))
        samples: dict[str, list[float]] = {impl: [] for impl in IMPLS}
        for r in range(rounds):
            order = IMPLS[r % 3 :] + IMPLS[: r % 3]
            for impl in order:
                samples[impl].append(_time_calls(fns[impl], number, timer) / number)
        result[mode] = {
            "number": number,
            "best_ms": {impl: min(s) * 1e3 for impl, s in samples.items()},
            "median_ms": {impl: sorted(s)[len(s) // 2] * 1e3 for impl, s in samples.items()},
            "max_rel_error": errors,
        }
    return result


def _time_calls(fn: Callable[[], Any], number: int, timer: Callable[[], float] = time.perf_counter) -> float:
    started = timer()
    for _ in range(number):
        fn()
    return timer() - started


# ------------------------------------------------------------------------------------------- parent


def run_child(args: list[str], env: dict[str, str], timeout: float = 1800) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", *args]
    clean = {k: v for k, v in os.environ.items() if k not in ("LOOM_LOGS", "TORCH_LOGS", "PYTHONDONTWRITEBYTECODE")}
    try:
        proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=timeout, env={**clean, **env})
    except subprocess.TimeoutExpired:
        return {"error": f"timed out after {timeout:.0f} s"}
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr.strip() else f"exit {proc.returncode}",
                "stderr": proc.stderr[-4000:]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _progress(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def bench(workloads: list[str], threads: list[int], loom_backend: str, rounds: int, round_ms: float,
          first_calls: bool, clock: str = "wall") -> dict[str, Any]:  # fmt: skip
    results: dict[str, Any] = {"loom_backend": loom_backend, "threads": threads, "clock": clock, "workloads": {}}
    with tempfile.TemporaryDirectory(prefix="loom-cpu-bench-") as tmp:
        bytecode = _bytecode_env(Path(tmp) / "pyc")
        for workload in workloads:
            entry: dict[str, Any] = {}
            caches = {
                **bytecode,
                "TORCHINDUCTOR_CACHE_DIR": str(Path(tmp) / workload / "inductor"),
                "LOOM_CACHE_DIR": str(Path(tmp) / workload / "loom"),
                "OMP_NUM_THREADS": "1",
            }
            if first_calls:
                for when in ("cold", "warm"):
                    for impl in ("inductor", "loom"):
                        _progress(f"{workload}: first call, {when} caches, {impl}")
                        entry[f"first_{when}_{impl}"] = run_child(["first", workload, impl, loom_backend], caches)
            for n in threads:
                _progress(f"{workload}: steady state, {n} thread(s)")
                env = {**caches, "OMP_NUM_THREADS": str(n)}
                entry[f"steady_{n}"] = run_child(
                    ["steady", workload, loom_backend, str(n), str(rounds), str(round_ms), clock], env
                )
            results["workloads"][workload] = entry
    return results


def _bytecode_env(prefix: Path) -> dict[str, str]:
    """Children import loom from bytecode, as an installed loom does (torch's comes with its wheel).

    Under ``PYTHONDONTWRITEBYTECODE`` (set on some development machines) every child would compile
    loom's sources again at import and at its first translation (~0.2 s here, counted against loom's
    first call only): loom's packages are byte-compiled once into ``prefix`` and children read them there.
    """
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        return {}
    import importlib.util

    roots = []
    for name in ("loom", "loom_symbolic", "loom_backends", "loom_guards", "loom_framehook"):
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.submodule_search_locations:
            roots.extend(spec.submodule_search_locations)
    env = {"PYTHONPYCACHEPREFIX": str(prefix)}
    subprocess.run([sys.executable, "-m", "compileall", "-q", *roots], env={**os.environ, **env},
                   capture_output=True, check=False)
    return env


def geomean(values: list[float]) -> float:
    values = [v for v in values if v > 0 and math.isfinite(v)]
    return math.exp(sum(map(math.log, values)) / len(values)) if values else math.nan


def report(results: dict[str, Any]) -> str:
    lines = [f"loom backend: {results['loom_backend']!r}; {results.get('clock', 'wall')} time per call, fastest interleaved round; "
             "x = speed-up over eager (higher is better), loom/ind = loom's time over inductor's"]
    for n in results["threads"]:
        lines += ["", f"steady state, {n} thread(s)",
                  f"{'workload':<18}{'eager ms':>10}{'ind ms':>10}{'loom ms':>10}{'ind x':>8}{'loom x':>8}"
                  f"{'loom/ind':>10}  max rel err (ind, loom)"]
        ind_x, loom_x, ratios = [], [], []
        for workload, entry in results["workloads"].items():
            steady = entry.get(f"steady_{n}", {})
            for mode in MODES:
                name = f"{workload} {mode}"
                if "error" in steady:
                    lines.append(f"{name:<18}  failed: {steady['error']}")
                    break
                row = steady[mode]
                best = row["best_ms"]
                ix, lx = best["eager"] / best["inductor"], best["eager"] / best["loom"]
                ratio = best["loom"] / best["inductor"]
                ind_x.append(ix)
                loom_x.append(lx)
                ratios.append(ratio)
                err = row["max_rel_error"]
                lines.append(f"{name:<18}{best['eager']:>10.3f}{best['inductor']:>10.3f}{best['loom']:>10.3f}"
                             f"{ix:>8.2f}{lx:>8.2f}{ratio:>10.2f}  {err['inductor']:.1e}, {err['loom']:.1e}")
        lines.append(f"{'geomean':<18}{'':>30}{geomean(ind_x):>8.2f}{geomean(loom_x):>8.2f}{geomean(ratios):>10.2f}")
    firsts = [(w, e) for w, e in results["workloads"].items() if "first_cold_inductor" in e]
    if firsts:
        lines += ["", "first call in a fresh process, seconds (1 thread): empty caches, then a second process over "
                  "the caches the first filled",
                  f"{'workload':<18}{'ind cold':>10}{'loom cold':>10}{'loom/ind':>10}"
                  f"{'ind warm':>10}{'loom warm':>10}{'loom/ind':>10}"]
        ratios_by: dict[str, list[float]] = {"cold": [], "warm": []}
        for workload, entry in firsts:
            for mode in MODES:
                cells, name = [], f"{workload} {mode}"
                for when in ("cold", "warm"):
                    ind, lm = entry[f"first_{when}_inductor"], entry[f"first_{when}_loom"]
                    if "error" in ind or "error" in lm:
                        cells.append(f"{'failed':>30}")
                        continue
                    ratio = lm[f"{mode}_s"] / ind[f"{mode}_s"]
                    ratios_by[when].append(ratio)
                    cells.append(f"{ind[f'{mode}_s']:>10.2f}{lm[f'{mode}_s']:>10.2f}{ratio:>10.3f}")
                lines.append(f"{name:<18}" + "".join(cells))
        lines.append(f"{'geomean':<18}{'':>20}{geomean(ratios_by['cold']):>10.3f}{'':>20}"
                     f"{geomean(ratios_by['warm']):>10.3f}")
        failed = [(w, k, v) for w, e in results["workloads"].items() for k, v in e.items() if "error" in v]
        for workload, key, value in failed:
            lines.append(f"  {workload} {key} failed: {value['error']}")
    return "\n".join(lines)


def default_loom_backend() -> str:
    import loom_backends

    return "c" if "c" in loom_backends.names() else "aot_eager"


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        kind, workload, *rest = sys.argv[2:]
        if kind == "first":
            out = child_first_call(workload, rest[0], rest[1])
        else:
            out = child_steady(workload, int(rest[1]), rest[0], int(rest[2]), float(rest[3]), rest[4])
        print(json.dumps(out))
        return
    import cpu_workloads

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--workloads", nargs="+", choices=list(cpu_workloads.WORKLOADS), default=None)
    parser.add_argument("--threads", nargs="+", type=int, default=None)
    parser.add_argument("--loom-backend", default=None, help="default: c if registered, else aot_eager")
    parser.add_argument("--rounds", type=int, default=None, help="timed rounds per version (default 15)")
    parser.add_argument("--round-ms", type=float, default=50.0, help="length of one round's batch of calls")
    parser.add_argument("--no-first-call", action="store_true", help="skip the first-call processes")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                        help="time per call: wall clock, or the process's CPU time (steadier on a loaded machine)")
    parser.add_argument("--quick", action="store_true", help="the pointwise chain, 1 thread, 5 rounds")
    args = parser.parse_args()
    workloads = args.workloads or (["pointwise"] if args.quick else list(cpu_workloads.WORKLOADS))
    threads = args.threads or ([1] if args.quick else [1, 2])
    rounds = args.rounds or (5 if args.quick else 15)
    backend = args.loom_backend or default_loom_backend()
    if backend != "c":
        _progress(f"loom backend {backend!r}: " + ("the c backend is not registered in this install; "
                  "loom's column shows its graphs run through ATen, not generated kernels"
                  if args.loom_backend is None else "as asked"))
    results = bench(workloads, threads, backend, rounds, args.round_ms, not args.no_first_call, args.clock)
    print(report(results))
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "cpu_bench.json").write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    sys.path.insert(0, str(Path(__file__).parent))
    main()
