#!/usr/bin/env python3
"""loom.compile side by side with torch.compile, from one run: one table, one plot.

    .venv/bin/python tools/bench/facade_bench.py            # everything (~5-8 minutes on a 2-core machine)
    .venv/bin/python tools/bench/facade_bench.py --quick    # one repetition, fewer depths (~2-3 minutes)

Both compilers use the eager backend (``backend="eager"``), so the figures compare what the compilers
add (capture, guards, the per-call path), not generated code. Method (see the notes on benchmarking):
one torch thread; per-thread CPU time; the best of interleaved rounds; a check before every timed
section that no eval-frame function was left installed; cold compiles in a fresh process each, after
the same warm-up compile of an unrelated function, with the model already run eagerly once.

Rows:
1. per-call overhead of a compiled tiny function (``sin(x) + 1`` on 16 floats) over eager;
2. cold first call (capture + compile + one run) of a 3-layer MLP, a transformer block and a 2-layer
   GPT-2 (``transformers``, small config, random weights), in fresh processes (best of --reps);
3. hook cost per frame the compiler skips (``fib`` frames under each compiler's hook, each compiler
   told not to compile fib: ``loom.disable(fib, recursive=False)`` / ``torch._dynamo.disable(...)``);
4. guard cost: one guard check of the tiny function's entry and of a TinyGPT's entry (loom: its
   compiled ``GuardFn``, called by the hook after it compares compiler and globals in C; torch: the
   entry's ``guard_manager.check``);
5. compile time against model depth (TinyGPT with 1 to 32 layers), plotted to tools/bench/out/.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
OUT = ROOT / "tools" / "bench" / "out"
MODELS_FILE = ROOT / "packages" / "loom" / "src" / "loom" / "examples" / "models.py"
FIB_N = 20
COLD_MODELS = ["mlp", "transformer", "gpt2"]
DEPTHS = [1, 2, 4, 8, 16, 32]


def load_models() -> Any:
    """The example models, loaded by path so that a torch.compile child never imports loom."""
    spec = importlib.util.spec_from_file_location("bench_models", MODELS_FILE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def make_model(models: Any, name: str, depth: int = 2) -> tuple[Any, Any]:
    import torch

    torch.manual_seed(0)
    if name == "mlp":
        return models.TinyMLP(width=64, depth=3).eval(), torch.randn(8, 64)
    if name == "transformer":
        return models.TransformerBlock(dim=64, heads=4).eval(), torch.randn(2, 16, 64)
    if name == "gpt2":
        return models.gpt2(layers=2), torch.randint(0, 1000, (2, 16))
    if name == "gpt":
        return models.TinyGPT(layers=depth).eval(), torch.randint(0, 128, (2, 16))
    raise ValueError(name)


def eval_name() -> str:
    from loom_framehook import _framehook

    return _framehook._current_eval_name()


def expect_no_hook() -> None:
    # An interrupted torch.compile can leave its eval function installed and slow every later timing.
    name = eval_name()
    if name != "default":
        raise RuntimeError(f"an eval-frame function is still installed before a timed section: {name!r}")


# --- child processes: one cold compile each ----------------------------------------------------------


def child_cold(compiler: str, model_name: str, depth: int) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    models = load_models()
    if compiler == "loom":
        import loom

        def compile_fn(m: Any) -> Any:
            return loom.compile(m, backend="eager")
    else:
        import torch._dynamo  # imported before timing, as loom's own imports are

        def compile_fn(m: Any) -> Any:
            return torch.compile(m, backend="eager")

    warm = compile_fn(models.warm_up)  # the same unrelated warm-up compile on both sides
    warm(torch.randn(8))
    model, x = make_model(models, model_name, depth)
    with torch.no_grad():
        expected = model(x)
        compiled = compile_fn(model)
        wall = time.perf_counter()
        cpu = time.thread_time()
        out = compiled(x)
        cpu = time.thread_time() - cpu
        wall = time.perf_counter() - wall
    out, expected = getattr(out, "logits", out), getattr(expected, "logits", expected)
    return {"wall_ms": wall * 1e3, "cpu_ms": cpu * 1e3, "ok": bool(torch.allclose(out, expected, rtol=1e-4, atol=1e-5))}


def run_child(compiler: str, model_name: str, depth: int = 2) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", compiler, model_name, str(depth)]
    env = {k: v for k, v in os.environ.items() if k not in ("LOOM_LOGS", "TORCH_LOGS")}  # no logging cost
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, timeout=900, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def cold(compiler: str, model_name: str, reps: int, depth: int = 2) -> dict[str, Any]:
    runs = [run_child(compiler, model_name, depth) for _ in range(reps)]
    return {"cpu_ms": min(r["cpu_ms"] for r in runs), "wall_ms": min(r["wall_ms"] for r in runs),
            "ok": all(r["ok"] for r in runs), "runs": runs}


# --- in-process measurements --------------------------------------------------------------------------


def best_per_call_ns(fns: dict[str, Any], repeat: int, rounds: int) -> dict[str, float]:
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(rounds):
        for name, fn in fns.items():
            if name == "eager":
                expect_no_hook()
            started = time.thread_time_ns()
            for _ in range(repeat):
                fn()
            best[name] = min(best[name], (time.thread_time_ns() - started) / repeat)
    return best


def per_call(rounds: int) -> dict[str, float]:
    import torch

    import loom

    models = load_models()
    t = torch.randn(16)
    loom_fn = loom.compile(models.sin_plus_one, backend="eager")
    torch_fn = torch.compile(models.sin_plus_one, backend="eager")
    loom_fn(t), torch_fn(t)
    assert torch.equal(loom_fn(t), models.sin_plus_one(t)) and torch.equal(torch_fn(t), models.sin_plus_one(t))
    us = best_per_call_ns({"eager": lambda: models.sin_plus_one(t), "loom": lambda: loom_fn(t),
                           "torch": lambda: torch_fn(t)}, 2000, rounds)
    return {k: v / 1e3 for k, v in us.items()}


def fib_loom(n: int) -> int:
    return n if n < 2 else fib_loom(n - 1) + fib_loom(n - 2)


def fib_torch(n: int) -> int:
    return n if n < 2 else fib_torch(n - 1) + fib_torch(n - 2)


def fib_plain(n: int) -> int:
    return n if n < 2 else fib_plain(n - 1) + fib_plain(n - 2)


def frames_of_fib(n: int) -> int:
    return 1 if n < 2 else 1 + frames_of_fib(n - 1) + frames_of_fib(n - 2)


def hook_cost(rounds: int) -> dict[str, float]:
    """Nanoseconds each compiler's hook adds to a frame it skips."""
    import torch
    import torch._dynamo

    import loom

    loom.disable(fib_loom, recursive=False)
    skipped_by_torch = torch._dynamo.disable(fib_torch, recursive=False)

    # The drivers take a tensor, so each compiler compiles them (a tensor-free driver would not reach
    # loom's hook at all: loom runs such a frame and its callees unhooked) and calls fib natively.
    def drive_loom(n: int, x: Any) -> int:
        return fib_loom(n)

    def drive_torch(n: int, x: Any) -> int:
        return skipped_by_torch(n)

    x = torch.ones(1)
    loom_drive = loom.compile(drive_loom, backend="eager")
    torch_drive = torch.compile(drive_torch, backend="eager")
    for _ in range(2):
        loom_drive(FIB_N, x), torch_drive(FIB_N, x)
    ns = best_per_call_ns({"eager": lambda: fib_plain(FIB_N), "loom": lambda: loom_drive(FIB_N, x),
                           "torch": lambda: torch_drive(FIB_N, x)}, 1, rounds * 3)
    frames = frames_of_fib(FIB_N)
    return {name: (value - ns["eager"]) / frames for name, value in ns.items() if name != "eager"}


def guard_cost(rounds: int) -> dict[str, dict[str, float]]:
    """One guard check of a cached entry, loom against torch, for a tiny function and a TinyGPT."""
    import torch
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    import loom_guards
    import loom_symbolic

    models = load_models()
    model, ids = make_model(models, "gpt", 2)
    cases = {
        "tiny function": (models.sin_plus_one, {"x": torch.randn(16)}, models.sin_plus_one),
        "TinyGPT (2 layers)": (type(model).forward, {"self": model, "ids": ids}, model),
    }
    out: dict[str, dict[str, float]] = {}
    for label, (fn, f_locals, target) in cases.items():
        # loom: the entry's guards, compiled with the frame's globals so that a dict of locals (with the
        # frame's f_globals) can stand in for the frame view.
        translation = loom_symbolic.translate_function(fn, *f_locals.values())
        guard_fn = loom_guards.compile(translation.guards, f_globals=fn.__globals__)
        # The hook compares the entry's compiler and globals in C before calling the guard (two pointer
        # compares): the guard function itself is what the hook calls.
        check = guard_fn
        f_locals = type("FrameLocals", (dict,), {"f_globals": fn.__globals__})(f_locals)
        # torch: the entry Dynamo cached for the same code
        torch_target = torch.compile(target, backend="eager")
        torch_target(*[v for k, v in f_locals.items() if k != "self"])  # grad mode on, as for loom's
        (entry, *_) = _debug_get_cache_entry_list(fn.__code__)
        torch_check = entry.guard_manager.check
        assert check(f_locals) and torch_check(f_locals)
        expect_no_hook()
        ns = best_per_call_ns({"loom": functools.partial(check, f_locals),
                               "torch": functools.partial(torch_check, f_locals)}, 5000, rounds)
        ns["loom guards"] = len(guard_fn.guards)
        ns["torch guards"] = len(entry.guard_manager.code_parts or [])
        out[label] = ns
    return out


# --- the depth sweep and its plot -----------------------------------------------------------------------


def depth_sweep(depths: list[int], reps: int, progress: Any) -> dict[str, dict[int, float]]:
    sweep: dict[str, dict[int, float]] = {"loom": {}, "torch": {}}
    for depth in depths:
        for compiler in ("loom", "torch"):
            progress(f"depth {depth}: {compiler} cold compile of TinyGPT({depth} layers)")
            sweep[compiler][depth] = cold(compiler, "gpt", reps, depth)["cpu_ms"]
    return sweep


def plot(sweep: dict[str, dict[int, float]], path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    for compiler, label in (("loom", "loom.compile"), ("torch", "torch.compile")):
        depths = sorted(sweep[compiler])
        ax.plot(depths, [sweep[compiler][d] / 1e3 for d in depths], marker="o", label=f"{label} (backend='eager')")
    ax.set_xlabel("TinyGPT depth (transformer blocks)")
    ax.set_ylabel("cold first call, thread CPU seconds")
    ax.set_title("Compile time against model depth (fresh process per point)")
    ax.set_xscale("log", base=2)
    ax.set_xticks(sorted(sweep["loom"]))
    ax.get_xaxis().set_major_formatter(matplotlib.ticker.ScalarFormatter())
    ax.grid(True, alpha=0.3)
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    plt.close(fig)


# --- the report ---------------------------------------------------------------------------------------------


def table(results: dict[str, Any]) -> str:
    rows = [("measurement", "loom", "torch.compile", "loom/torch", "goal")]

    def row(label: str, loom_v: float, torch_v: float, unit: str, goal: str = "") -> None:
        ratio = f"{loom_v / torch_v:.3f}" if torch_v > 0 else "-"
        rows.append((label, f"{loom_v:,.2f} {unit}", f"{torch_v:,.2f} {unit}", ratio, goal))

    pc = results["per_call"]
    rows.append(("eager call of sin(x)+1 on 16 floats", f"{pc['eager']:.2f} us", "", "", ""))
    row("per-call overhead over eager", pc["loom"] - pc["eager"], pc["torch"] - pc["eager"], "us", "<= 0.1")
    for name, label in (("mlp", "3-layer MLP"), ("transformer", "transformer block"), ("gpt2", "GPT-2, 2 layers (HF)")):
        c = results["cold"][name]
        row(f"cold first call, {label} (CPU)", c["loom"]["cpu_ms"], c["torch"]["cpu_ms"], "ms", "<= 0.2")
        row(f"cold first call, {label} (wall)", c["loom"]["wall_ms"], c["torch"]["wall_ms"], "ms", "")
    hc = results["hook"]
    row("hook cost per skipped frame", hc["loom"], hc["torch"], "ns", "")
    for label, g in results["guards"].items():
        row(f"guard check, {label} ({g['loom guards']}/{g['torch guards']} guards)", g["loom"], g["torch"], "ns", "")
    sweep = results.get("sweep")
    if sweep:
        for depth in sorted(sweep["loom"]):
            row(f"cold first call, TinyGPT {depth} layers (CPU)", sweep["loom"][depth], sweep["torch"][depth], "ms", "")
    widths = [max(len(r[i]) for r in rows) for i in range(5)]
    lines = ["  ".join(cell.ljust(widths[i]) if i == 0 else cell.rjust(widths[i]) for i, cell in enumerate(r))
             for r in rows]
    lines.insert(1, "-" * len(lines[0]))
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--quick", action="store_true", help="one repetition, depths 1, 4, 16, 32")
    parser.add_argument("--reps", type=int, default=3, help="fresh processes per cold-compile figure (best of)")
    parser.add_argument("--rounds", type=int, default=7, help="interleaved rounds for in-process timings")
    parser.add_argument("--no-sweep", action="store_true", help="skip the compile-time-against-depth sweep")
    parser.add_argument("--child", nargs=3, metavar=("COMPILER", "MODEL", "DEPTH"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        compiler, model_name, depth = args.child
        print(json.dumps(child_cold(compiler, model_name, int(depth))))
        return 0

    reps = 1 if args.quick else args.reps
    depths = [1, 4, 16, 32] if args.quick else DEPTHS
    started = time.perf_counter()

    def progress(message: str) -> None:
        print(f"[bench {time.perf_counter() - started:6.1f}s] {message}", file=sys.stderr, flush=True)

    import torch

    torch.set_num_threads(1)
    results: dict[str, Any] = {}
    progress("per-call overhead (in process)")
    results["per_call"] = per_call(args.rounds)
    progress("hook cost on skipped frames (in process)")
    results["hook"] = hook_cost(args.rounds)
    progress("guard cost (in process)")
    results["guards"] = guard_cost(args.rounds)
    results["cold"] = {}
    for name in COLD_MODELS:
        results["cold"][name] = {}
        for rep in range(reps):  # interleave the compilers, one fresh process each
            for compiler in ("loom", "torch"):
                progress(f"cold first call of {name}: {compiler} (process {rep + 1} of {reps})")
                run = run_child(compiler, name)
                slot = results["cold"][name].setdefault(compiler, {"runs": []})
                slot["runs"].append(run)
        for compiler, slot in results["cold"][name].items():
            slot["cpu_ms"] = min(r["cpu_ms"] for r in slot["runs"])
            slot["wall_ms"] = min(r["wall_ms"] for r in slot["runs"])
            if not all(r["ok"] for r in slot["runs"]):
                raise RuntimeError(f"{compiler} gave a wrong answer on {name}")
    OUT.mkdir(parents=True, exist_ok=True)
    if not args.no_sweep:
        results["sweep"] = depth_sweep(depths, 1, progress)
        plot(results["sweep"], OUT / "compile_time_vs_depth.png")
    (OUT / "facade_bench.json").write_text(json.dumps(results, indent=2, default=str))
    progress("done")
    print(f"\nloom vs torch.compile (backend='eager' on both sides), torch {torch.__version__}, "
          f"Python {sys.version.split()[0]}, one torch thread, one run:\n")
    print(table(results))
    print("\ncold figures: best of fresh processes, after the same warm-up compile, model run eagerly once first")
    if not args.no_sweep:
        print(f"plot: {OUT / 'compile_time_vs_depth.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
