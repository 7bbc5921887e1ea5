#!/usr/bin/env python3
"""Check loom's ``triton`` backend on a CUDA GPU: correctness op by op and model by model, then speed
kernel by kernel against inductor. One script, one run, results in a folder.

    python tools/gpu_check.py OUT_DIR            # on a GPU machine (about 7 minutes on one H200)
    python tools/gpu_check.py --dry-run OUT_DIR  # the same steps on the CPU, at small sizes, under
                                                 # Triton's interpreter (a test runs it)

Steps (each one's results go to ``OUT_DIR/results.json`` and a Markdown table to ``results.md``):

1. ``ops``: loom-backends' lowering tests (``packages/backends/tests``) with ``LOOM_TEST_DEVICE=cuda``:
   every graph they check runs on the GPU against eager ATen there (float32, float16 and bfloat16;
   contiguous and not; NaN and inf, as the tests choose them).
2. ``models``: an MLP, a transformer block, a conv+batch-norm net and GPT-2 (a tiny config of
   ``transformers``' if it is installed) forward and backward against eager: the output, every input
   gradient and every parameter gradient. Through ``loom.compile(backend="triton")`` where loom's
   translator runs on this interpreter, else through TorchDynamo handing its graphs to the same backend
   (the result says which).
3. ``kernels``: single-kernel fused regions (bias+GELU, softmax in two precisions, layer norm, row and
   column sums, var_mean, a cast, a transpose copy) at sizes that fill the GPU, each timed against the
   kernel inductor generates for the same function: median of CUDA-event timings after warm-up, L2
   flushed between runs; bytes each loom kernel moves and the fraction of the H200's 4.8 TB/s (and of
   the copy bandwidth measured at the start) it reaches.
4. ``steps``: each model's forward+backward step, eager against loom against inductor, same timing.

The exit status is 0 when nothing mismatched and no step failed; speed goals are reported, not enforced.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import os
import platform
import statistics
import subprocess
import sys
import time
import traceback
import xml.etree.ElementTree as ElementTree
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools" / "bench"))

import torch  # noqa: E402
from torch import nn  # noqa: E402

H200_BANDWIDTH = 4.8e12  # bytes/s, the vendor's datasheet figure
OP_TEST_FILES = ["test_pointwise.py", "test_reductions.py", "test_views.py", "test_misc.py", "test_fusion.py",
                 "test_rule_samples.py"]  # fmt: skip
# On the CPU the interpreter makes every kernel slow: the dry run checks a sample of each file.
DRY_RUN_OP_SELECTION = "float32 and (relu or exp or add or sum or amax) or softmax_like or test_cat"
KERNEL_GOAL_GEOMEAN, KERNEL_GOAL_MAX, BANDWIDTH_GOAL = 1.0, 1.1, 0.70


class Run:
    """Settings of one run, and where its results go."""

    def __init__(self, out: Path, dry_run: bool, budget_s: float) -> None:
        self.out = out
        self.dry_run = dry_run
        self.device = "cpu" if dry_run else "cuda"
        self.deadline = time.monotonic() + budget_s
        self.reps = 1 if dry_run else 25
        self.warmup = 0 if dry_run else 5
        self.results: dict[str, Any] = {"dry_run": dry_run, "device": self.device, "steps": {}}

    def time_left(self) -> float:
        return self.deadline - time.monotonic()


# ------------------------------------------------------------------------------------------- timing
class Timer:
    """Median milliseconds of a callable: CUDA events on the GPU (L2 flushed between runs), wall clock
    on the CPU (where kernels run in the interpreter and the figure only shows the code path works)."""

    def __init__(self, run: Run) -> None:
        self.run = run
        self.gpu = run.device == "cuda"
        # twice the H200's 60 MB of L2: writing it evicts what the previous run left there
        self.flush = torch.empty(32 * 2**20, dtype=torch.float32, device="cuda") if self.gpu else None

    def median_ms(self, fn: Callable[[], Any]) -> float:
        for _ in range(self.run.warmup):
            fn()
        if not self.gpu:
            times = []
            for _ in range(self.run.reps):
                started = time.perf_counter()
                fn()
                times.append((time.perf_counter() - started) * 1e3)
            return statistics.median(times)
        torch.cuda.synchronize()
        pairs = []
        for _ in range(self.run.reps):
            self.flush.zero_()
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            pairs.append((start, end))
        torch.cuda.synchronize()
        return statistics.median(s.elapsed_time(e) for s, e in pairs)


def copy_bandwidth(run: Run, timer: Timer) -> float | None:
    """Bytes per second of a device-to-device copy (read + write), the practical ceiling of a kernel."""
    if run.device != "cuda":
        return None
    src = torch.empty(2**28, dtype=torch.float32, device="cuda")  # 1 GiB
    dst = torch.empty_like(src)
    ms = timer.median_ms(lambda: dst.copy_(src))
    return 2 * src.numel() * 4 / (ms / 1e3)


# ---------------------------------------------------------------------------------------- 1. ops
def check_ops(run: Run) -> dict[str, Any]:
    """loom-backends' lowering tests, on the run's device; pass/fail counts and the failures."""
    report = run.out / "ops-junit.xml"
    tests = [str(ROOT / "packages" / "backends" / "tests" / name) for name in OP_TEST_FILES]
    command = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}", *tests]
    if run.dry_run:
        command += ["-k", DRY_RUN_OP_SELECTION]
    else:
        workers = min(8, os.cpu_count() or 1)
        command += ["-n", str(workers)] if _has_xdist() else []
    env = dict(os.environ, LOOM_TEST_DEVICE=run.device, LOOM_TEST_GENERATORS="triton")  # this checks Triton
    started = time.monotonic()
    proc = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=max(30, run.time_left() - 60))  # fmt: skip
    (run.out / "ops-pytest.log").write_text(proc.stdout + proc.stderr)
    counts, failures = _junit_counts(report)
    return {"seconds": round(time.monotonic() - started, 1), "exit_status": proc.returncode, **counts,
            "failures": failures[:50], "ok": proc.returncode == 0 and counts["failed"] == 0}  # fmt: skip


def _has_xdist() -> bool:
    try:
        import xdist  # noqa: F401
    except ImportError:
        return False
    return True


def _junit_counts(path: Path) -> tuple[dict[str, int], list[str]]:
    counts = {"passed": 0, "failed": 0, "skipped": 0}
    failures: list[str] = []
    if not path.exists():
        return counts, ["pytest wrote no report"]
    for case in ElementTree.parse(path).getroot().iter("testcase"):
        outcome = next((child.tag for child in case if child.tag in ("failure", "error", "skipped")), "passed")
        if outcome in ("failure", "error"):
            counts["failed"] += 1
            failures.append(f"{case.get('classname')}::{case.get('name')}")
        else:
            counts[outcome] += 1
    return counts, failures


# ------------------------------------------------------------------------------------- 2. models
def model_factories(run: Run) -> dict[str, Callable[[], tuple[nn.Module, list[torch.Tensor]]]]:
    """The models of ``tools/bench/backends_bench.py``, small in a dry run, GPU-sized otherwise."""
    import backends_bench

    backends_bench.DEVICE = run.device
    factories = backends_bench.models(small=run.dry_run)
    try:
        import transformers  # noqa: F401
    except ImportError:
        from loom.examples.models import TinyGPT

        def tiny_gpt() -> tuple[nn.Module, list[torch.Tensor]]:
            model = TinyGPT(layers=2) if run.dry_run else TinyGPT(vocab=512, dim=768, heads=12, layers=4, context=512)
            ids = torch.randint(0, 128, (2, 16) if run.dry_run else (8, 512), device=run.device)
            return model, [ids]

        factories["gpt2"] = tiny_gpt
    return factories


def loom_translates() -> bool:
    """Whether loom's own translator runs on this interpreter (else TorchDynamo captures the graphs)."""
    try:  # the GPU machine's image may lack ``bytecode`` or a built hook: then TorchDynamo captures
        import bytecode  # noqa: F401

        import loom  # noqa: F401
        import loom_framehook  # noqa: F401
        import loom_symbolic.versions
    except ImportError:
        return False
    return loom_symbolic.versions.is_supported()


def compile_triton(module: nn.Module) -> tuple[Callable[..., Any], list[Any], str]:
    """``(compiled module, the backend's compiled graphs as they come, frontend name)``."""
    import loom_backends

    artifacts: list[Any] = []

    def backend(gm: Any, example_inputs: list[Any]) -> Any:
        compiled = loom_backends.get("triton")(gm, example_inputs)
        artifacts.append(compiled)
        return compiled

    if loom_translates():
        import loom

        loom.reset()
        return loom.compile(module, backend=backend), artifacts, "loom"
    torch._dynamo.reset()
    return torch.compile(module, backend=backend, dynamic=False), artifacts, "torchdynamo"


def _grad_inputs(inputs: list[torch.Tensor]) -> list[torch.Tensor]:
    return [x.clone().requires_grad_(x.is_floating_point()) for x in inputs]


def _step(fn: Callable[..., Any], inputs: list[torch.Tensor]) -> torch.Tensor:
    out = fn(*inputs)
    out.float().sum().backward()
    return out


def _relative_errors(pairs: dict[str, tuple[torch.Tensor, torch.Tensor]]) -> dict[str, float]:
    """Max absolute difference of each pair over the size of what eager computed plus a hundredth of the
    largest value of all pairs: a gradient that is zero in exact arithmetic (a conv bias before a batch
    norm) is rounding noise in both, and its own scale would make that noise look like an error."""
    floor = max(float(want.detach().abs().max()) for _, want in pairs.values()) * 1e-2 + 1e-12
    return {
        name: float((got.detach().double() - want.detach().double()).abs().max()) / (float(want.detach().abs().max()) + floor)
        for name, (got, want) in pairs.items()
    }  # fmt: skip


def check_model(run: Run, name: str, factory: Callable[[], tuple[nn.Module, list[torch.Tensor]]]) -> dict[str, Any]:
    """Forward and backward of ``name`` through the triton backend against eager, and its kernels."""
    torch.manual_seed(0)
    module, inputs = factory()
    module = module.to(run.device)
    reference = copy.deepcopy(module)
    compiled, artifacts, frontend = compile_triton(module)
    started = time.perf_counter()
    ours = _grad_inputs(inputs)
    out = _step(compiled, ours)
    first_call_s = time.perf_counter() - started
    theirs = _grad_inputs(inputs)
    want = _step(reference, theirs)
    pairs = {"output": (out, want)}
    pairs.update({f"input{i}.grad": (a.grad, b.grad) for i, (a, b) in enumerate(zip(ours, theirs)) if b.grad is not None})
    pairs.update({f"{pname}.grad": (p.grad, q.grad) for (pname, p), q in zip(module.named_parameters(), reference.parameters())
                  if q.grad is not None})  # fmt: skip
    errors = _relative_errors(pairs)
    worst = max(errors, key=errors.get)
    graphs = [g for a in artifacts for g in a.graphs]
    fallbacks = [g.compiled.fallback_reason for g in graphs if g.compiled.fallback_reason]
    return {
        "model": name, "frontend": frontend, "first_call_s": round(first_call_s, 2),
        "graphs": [g.kind for g in graphs], "kernels": sum(len(g.compiled.kernels) for g in graphs),
        "externs": sorted({e.op for g in graphs for e in g.compiled.externs}),
        "max_relative_error": errors[worst], "worst": worst, "fallbacks": fallbacks,
        "ok": errors[worst] <= 1e-3 and not fallbacks, "_compiled": compiled, "_module": module,
        "_reference": reference, "_inputs": inputs,
    }  # fmt: skip


# ------------------------------------------------------------------------------------ 3. kernels
def kernel_regions(run: Run) -> dict[str, tuple[Callable[..., Any], list[torch.Tensor]]]:
    """Functions that loom fuses into one kernel each, at sizes several times the L2 on a GPU."""
    import backends_bench

    backends_bench.DEVICE, backends_bench.GPU = run.device, run.device == "cuda"
    regions = backends_bench.kernel_patterns(small=run.dry_run)
    rows, cols = (8, 64) if run.dry_run else (8192, 8192)
    x = torch.randn(rows, cols, device=run.device)
    regions["cast_bf16"] = (lambda a: (a * 2).to(torch.bfloat16), [x])
    regions["transpose_copy"] = (lambda a: a.t().contiguous() + 1, [x])
    if run.dry_run:  # two show that the path works; the interpreter is slow
        regions = {k: regions[k] for k in ("add_gelu", "row_sum")}
    return regions


class _Fn(nn.Module):
    def __init__(self, fn: Callable[..., Any]) -> None:
        super().__init__()
        self.fn = fn

    def forward(self, *args: Any) -> Any:
        return self.fn(*args)


def _inductor(fn: Callable[..., Any]) -> Callable[..., Any]:
    torch._dynamo.reset()
    return torch.compile(_Fn(fn), backend="inductor", dynamic=False)


def time_region(run: Run, timer: Timer, name: str, fn: Callable[..., Any], inputs: list[torch.Tensor],
                ceiling: float | None) -> dict[str, Any]:  # fmt: skip
    """loom's kernel(s) for ``fn`` against inductor's and eager's: correctness, time, bytes, bandwidth."""
    compiled, artifacts, _ = compile_triton(_Fn(fn))
    with torch.no_grad():
        got, want = compiled(*inputs), fn(*inputs)
        tol = 2e-2 if want.dtype in (torch.float16, torch.bfloat16) else 1e-4
        mismatch = not torch.allclose(got.float(), want.float(), atol=tol, rtol=tol, equal_nan=True)
        kernels = [k for a in artifacts for g in a.graphs for k in g.compiled.kernels]
        moved = sum(k.bytes_read + k.bytes_written for k in kernels)
        loom_ms = timer.median_ms(lambda: compiled(*inputs))
        inductor = _inductor(fn)
        inductor(*inputs)
        inductor_ms = timer.median_ms(lambda: inductor(*inputs))
        eager_ms = timer.median_ms(lambda: fn(*inputs))
    achieved = moved / (loom_ms / 1e3) if loom_ms > 0 else 0.0
    return {
        "region": name, "loom_kernels": len(kernels), "bytes": moved, "loom_ms": loom_ms,
        "inductor_ms": inductor_ms, "eager_ms": eager_ms, "loom_vs_inductor": loom_ms / inductor_ms,
        "fraction_of_4.8TB/s": achieved / H200_BANDWIDTH,
        "fraction_of_copy": (achieved / ceiling) if ceiling else None, "ok": not mismatch,
    }  # fmt: skip


# -------------------------------------------------------------------------------------- 4. steps
def time_step(run: Run, timer: Timer, row: dict[str, Any]) -> dict[str, Any]:
    """A model's forward+backward step: eager, loom and inductor."""
    inputs = row["_inputs"]
    inductor = _inductor(copy.deepcopy(row["_reference"]))
    timings = {
        "eager_ms": timer.median_ms(lambda: _step(row["_reference"], _grad_inputs(inputs))),
        "loom_ms": timer.median_ms(lambda: _step(row["_compiled"], _grad_inputs(inputs))),
        "inductor_ms": timer.median_ms(lambda: _step(inductor, _grad_inputs(inputs))),
    }
    timings["loom_vs_inductor"] = timings["loom_ms"] / timings["inductor_ms"]
    timings["loom_vs_eager"] = timings["loom_ms"] / timings["eager_ms"]
    return {"model": row["model"], **timings}


# ------------------------------------------------------------------------------------------ driver
def step(run: Run, name: str, body: Callable[[], Any]) -> Any:
    """Run one step, recording its result or its error; a step past the time budget is skipped."""
    if run.time_left() <= 0:
        run.results["steps"][name] = {"skipped": "time budget spent"}
        return None
    started = time.monotonic()
    try:
        value = body()
    except Exception as err:  # one failing step must not lose the others' results
        run.results["steps"][name] = {"error": f"{type(err).__name__}: {err}", "traceback": traceback.format_exc()}
        return None
    run.results["steps"][name] = {"seconds": round(time.monotonic() - started, 1), "result": value}
    print(f"[gpu_check] {name}: {time.monotonic() - started:.1f} s", flush=True)
    return value


def summarize(run: Run) -> dict[str, Any]:
    """Goals and pass/fail over every step's results."""
    steps = run.results["steps"]
    errors = [name for name, s in steps.items() if "error" in s]
    regions = (steps.get("kernels") or {}).get("result") or []
    ratios = [r["loom_vs_inductor"] for r in regions if r.get("loom_vs_inductor")]
    models = (steps.get("models") or {}).get("result") or []
    model_steps = (steps.get("steps") or {}).get("result") or []
    ops = (steps.get("ops") or {}).get("result") or {}
    mismatches = ops.get("failed", 0) + sum(not r["ok"] for r in models) + sum(not r["ok"] for r in regions)
    summary = {
        "mismatches": mismatches, "failed_steps": errors,
        "kernel_geomean_vs_inductor": math.exp(statistics.fmean(map(math.log, ratios))) if ratios else None,
        "kernel_max_vs_inductor": max(ratios) if ratios else None,
        "kernels_below_bandwidth_goal": [r["region"] for r in regions if r["fraction_of_4.8TB/s"] < BANDWIDTH_GOAL],
        "steps_slower_than_inductor": [r["model"] for r in model_steps if r["loom_vs_inductor"] > 1.0],
    }  # fmt: skip
    summary["ok"] = mismatches == 0 and not errors
    return summary


def markdown(results: dict[str, Any]) -> str:
    """The results as Markdown tables, for a closing note."""
    steps, summary = results["steps"], results["summary"]
    lines = [f"# gpu_check ({'dry run, CPU' if results['dry_run'] else results.get('gpu', 'GPU')})", ""]
    lines += [f"- {k}: {_fmt(v)}" for k, v in results["environment"].items()]
    lines += [f"- {k}: {_fmt(v)}" for k, v in summary.items()]
    ops = (steps.get("ops") or {}).get("result")
    if ops:
        lines += ["", "## Lowering tests", "", f"passed {ops['passed']}, failed {ops['failed']}, skipped "
                  f"{ops['skipped']} ({ops['seconds']} s)"]  # fmt: skip
        lines += [f"- FAILED {f}" for f in ops["failures"]]
    tables = {
        "models": ("Models, forward + backward against eager", ["model", "frontend", "graphs", "kernels",
                   "max_relative_error", "worst", "first_call_s", "ok"]),
        "kernels": ("Fused regions against inductor (ms, median)", ["region", "loom_kernels", "bytes", "loom_ms",
                    "inductor_ms", "eager_ms", "loom_vs_inductor", "fraction_of_4.8TB/s", "fraction_of_copy", "ok"]),
        "steps": ("Training steps (ms, median)", ["model", "eager_ms", "loom_ms", "inductor_ms", "loom_vs_inductor",
                  "loom_vs_eager"]),
    }  # fmt: skip
    for key, (title, columns) in tables.items():
        rows = (steps.get(key) or {}).get("result")
        if rows:
            lines += ["", f"## {title}", "", "| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
            lines += ["| " + " | ".join(_fmt(r.get(c)) for c in columns) + " |" for r in rows]
    for name, s in steps.items():
        if "error" in s or "skipped" in s:
            lines += ["", f"## {name}: {s.get('error') or s.get('skipped')}"]
    return "\n".join(lines) + "\n"


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{v:.3g}"
    return str(v)


def _public(value: Any) -> Any:
    """``value`` without the live objects kept for later steps (keys starting with ``_``)."""
    if isinstance(value, dict):
        return {k: _public(v) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, list):
        return [_public(v) for v in value]
    return value


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("out", type=Path, help="folder for results.json, results.md and the test logs")
    parser.add_argument("--dry-run", action="store_true", help="the same steps on the CPU at small sizes")
    parser.add_argument("--budget-s", type=float, default=420.0, help="skip the steps that start after this")
    args = parser.parse_args(argv)
    if not args.dry_run and not torch.cuda.is_available():
        parser.error("no CUDA GPU here: pass --dry-run to check the steps on the CPU")
    args.out.mkdir(parents=True, exist_ok=True)
    run = Run(args.out, args.dry_run, args.budget_s)
    os.environ.setdefault("LOOM_CACHE_DIR", str(args.out / "cache"))
    import triton

    run.results["environment"] = {
        "python": platform.python_version(), "torch": torch.__version__, "triton": triton.__version__,
        "gpu": torch.cuda.get_device_name() if run.device == "cuda" else None, "loom_translator": loom_translates(),
    }  # fmt: skip
    if run.device == "cpu":
        torch.set_num_threads(max(1, min(4, os.cpu_count() or 1)))
    timer = Timer(run)
    run.results["environment"]["copy_bandwidth_bytes_per_s"] = ceiling = step(run, "bandwidth", lambda: copy_bandwidth(run, timer))
    step(run, "ops", lambda: check_ops(run))
    factories = model_factories(run)
    models = step(run, "models", lambda: [check_model(run, n, f) for n, f in factories.items()]) or []
    regions = kernel_regions(run)
    step(run, "kernels", lambda: [time_region(run, timer, n, fn, xs, ceiling) for n, (fn, xs) in regions.items()])
    timed = models[:1] if run.dry_run else models  # under the interpreter one model shows the path works
    step(run, "steps", lambda: [time_step(run, timer, row) for row in timed])
    run.results["summary"] = summarize(run)
    results = _public(run.results)
    (args.out / "results.json").write_text(json.dumps(results, indent=2, default=str))
    (args.out / "results.md").write_text(markdown(results))
    print((args.out / "results.md").read_text())
    return 0 if run.results["summary"]["ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
