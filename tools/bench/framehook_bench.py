#!/usr/bin/env python3
"""What loom_framehook costs, side by side with a do-nothing C hook and torch.compile's hook.

    .venv/bin/python tools/bench/framehook_bench.py              # this Python
    .venv-py3.12/bin/python tools/bench/framehook_bench.py       # torch parts are skipped without torch
    .venv/bin/python tools/bench/framehook_bench.py --all-pythons  # every .venv* of the repo, one table
    ... --depth                                                  # also bisect the reachable recursion depth

Method (see docs on benchmarking): per-thread CPU time (time.thread_time_ns), the best of N rounds, the
modes interleaved round by round, one torch thread, and a check before every timed section that the
expected eval function is installed (an interrupted torch.compile can leave its own behind).

1. Hook cost per frame: fib(25) (242,785 Python frames) with no hook; with a do-nothing C eval
   function (loom_framehook's private 'noop' test hook: `return _PyEval_EvalFrameDefault(...)`);
   with loom_framehook installed and every code marked SKIP; and, where torch is installed, with
   torch.compile's hook running over frames it skips (a compiled function calls
   `torch._dynamo.disable(fib, recursive=False)`, so Dynamo's hook sees every fib frame and skips it).
   Budget: loom within 8 ns/frame of the do-nothing hook, and under half of torch's added cost.
2. Per call of a one-line function (`leaf(x)`, 100,000 calls from a loop): the hook skipping it; a
   cache hit with a C guard (`bool`), with a Python guard (`lambda frame: True`) and with a guard
   reading f_locals; a replacement returned by the callback on every call; the callback returning
   None on every call.
3. (--depth) The deepest recursion reached with the recursion limit raised to 10**6, per mode.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import loom_framehook as fh
from loom_framehook import _framehook

ROOT = Path(__file__).resolve().parents[2]
FIB_N = 25
LEAF_CALLS = 100_000


def fib(n):
    return n if n < 2 else fib(n - 1) + fib(n - 2)


def fib_frames(n):
    return 1 if n < 2 else 1 + fib_frames(n - 1) + fib_frames(n - 2)


def leaf(x):
    return x


def drive(n, x):
    for _ in range(n):
        leaf(x)


def timed(fn, *args):
    start = time.thread_time_ns()
    fn(*args)
    return time.thread_time_ns() - start


def expect_eval(name):
    current = _framehook._current_eval_name()
    if current != name:
        raise RuntimeError(f"expected the {name!r} eval function before timing, found {current!r}")


def skip_everything(frame):
    return fh.SKIP


# --- 1. hook cost per frame ------------------------------------------------------------------------


def mode_none():
    expect_eval("default")
    return timed(fib, FIB_N)


def mode_noop():
    expect_eval("default")
    _framehook._install_test_hook("noop")
    try:
        return timed(fib, FIB_N)
    finally:
        _framehook._install_test_hook("off")


def mode_loom_skip():
    expect_eval("default")
    fh.set_callback(skip_everything)
    try:
        return timed(fib, FIB_N)
    finally:
        fh.set_callback(None)


def make_torch_mode():
    try:
        import torch
        import torch._dynamo
    except ImportError:
        return None
    torch.set_num_threads(1)
    fib_skipped = torch._dynamo.disable(fib, recursive=False)

    @torch.compile(backend="eager")
    def compiled(n):
        return fib_skipped(n)

    compiled(FIB_N)  # compile once, outside the timings
    compiled(FIB_N)

    def mode_torch():
        expect_eval("default")
        return timed(compiled, FIB_N)

    return mode_torch


def best_of(modes, rounds):
    best = dict.fromkeys(modes, float("inf"))
    for _ in range(rounds):
        for name, fn in modes.items():
            best[name] = min(best[name], fn())
    return best


def bench_frames(rounds, with_torch):
    fh.set_callback(skip_everything)  # mark every code on the path SKIP once
    fib(5)
    fh.set_callback(None)
    modes = {"none": mode_none, "noop": mode_noop, "loom_skip": mode_loom_skip}
    if with_torch:
        torch_mode = make_torch_mode()
        if torch_mode is not None:
            modes["torch_skip"] = torch_mode
    best = best_of(modes, rounds)
    frames = fib_frames(FIB_N)
    out = {"frames": frames, "none_ns_per_frame": best["none"] / frames}
    for name in modes:
        if name != "none":
            out[f"{name}_added_ns"] = (best[name] - best["none"]) / frames
    return out


# --- 2. per-call costs ----------------------------------------------------------------------------

LEAF_COPY = leaf.__code__.replace()


def with_callback(cb, prepare=None):
    def run():
        expect_eval("default")
        fh.clear(leaf.__code__)
        fh.set_callback(cb)
        try:
            if prepare:
                prepare()
            return timed(drive, LEAF_CALLS, 1)
        finally:
            fh.set_callback(None)

    return run


def entry_callback(guard):
    def cb(frame):
        if frame.f_code is leaf.__code__:
            return fh.Entry(LEAF_COPY, guard)
        return fh.SKIP

    return cb


def replace_every_time(frame):
    if frame.f_code is leaf.__code__:
        return LEAF_COPY
    return fh.SKIP


def none_for_leaf(frame):
    if frame.f_code is leaf.__code__:
        return None
    return fh.SKIP


def bench_calls(rounds):
    def plain():
        expect_eval("default")
        return timed(drive, LEAF_CALLS, 1)

    def warm():
        leaf(1)  # the miss: stores the entry

    modes = {
        "none": plain,
        "skip": with_callback(skip_everything),
        "hit_bool_guard": with_callback(entry_callback(bool), warm),
        "hit_lambda_guard": with_callback(entry_callback(lambda frame: True), warm),
        "hit_f_locals_guard": with_callback(entry_callback(lambda frame: frame.f_locals["x"] == 1), warm),
        "replacement_from_callback": with_callback(replace_every_time),
        "callback_returns_none": with_callback(none_for_leaf),
    }
    fh.set_callback(skip_everything)
    drive(1, 1)  # mark drive (and this module's helpers) SKIP; leaf is cleared per mode
    fh.set_callback(None)
    best = best_of(modes, rounds)
    return {name: (best[name] - best["none"]) / LEAF_CALLS for name in modes if name != "none"} | {
        "none_ns_per_call": best["none"] / LEAF_CALLS
    }


# --- 3. recursion depth ---------------------------------------------------------------------------

DEPTH_PROGRAM = ROOT / "packages" / "framehook" / "tests" / "depth_program.py"


def reaches(mode, depth):
    proc = subprocess.run(
        [sys.executable, str(DEPTH_PROGRAM), mode, str(depth), str(10**6)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    return proc.returncode == 0 and proc.stdout.split()[:1] == ["ok"], proc.returncode < 0


def deepest(mode, high=200_000):
    """Largest depth that succeeds (bisection between a known-good and a failing depth)."""
    lo, hi, crashed = 100, None, False
    probe = 1000
    while hi is None:
        ok, crash = reaches(mode, probe)
        if ok:
            lo = probe
            if probe >= high:
                return lo, None  # reached the cap
            probe = min(probe * 2, high)
        else:
            hi, crashed = probe, crash
    while hi - lo > max(50, lo // 100):
        mid = (lo + hi) // 2
        ok, crash = reaches(mode, mid)
        if ok:
            lo = mid
        else:
            hi, crashed = mid, crash
    return lo, crashed


DEPTH_MODES = {
    "off": "no hook",
    "skip": "hook, every code SKIP",
    "replace": "hook, every frame replaced",
    "skip_recursive": "hook, recursive code SKIP_RECURSIVE",
}


def bench_depth():
    out = {}
    for mode in DEPTH_MODES:
        depth, crashed = deepest(mode)
        fails_by = "crash" if crashed else ("RecursionError" if crashed is not None else "(cap)")
        out[mode] = {"depth": depth, "fails_by": fails_by}
    return out


# --- reporting ------------------------------------------------------------------------------------


def measure(args):
    result = {
        "python": sys.version.split()[0],
        "compat": fh.COMPAT_FAMILY,
        "frames": bench_frames(args.rounds, with_torch=not args.no_torch),
        "calls": bench_calls(args.rounds),
    }
    if args.depth:
        result["depth"] = bench_depth()
    return result


def report(results):
    cols = [r["python"] for r in results]
    width = 16

    def row(label, values, fmt="{:+.1f}"):
        cells = "".join((fmt.format(v) if isinstance(v, (int, float)) else str(v)).rjust(width) for v in values)
        print(f"  {label:<44}{cells}")

    print(f"  {'CPython':<44}" + "".join(c.rjust(width) for c in cols))
    frames = [r["frames"] for r in results]
    print(f"fib({FIB_N}): {frames[0]['frames']} frames; ns per frame (best of interleaved rounds)")
    row("no hook", [f["none_ns_per_frame"] for f in frames], "{:.1f}")
    row("+ do-nothing C hook", [f["noop_added_ns"] for f in frames])
    row("+ loom_framehook, every code SKIP", [f["loom_skip_added_ns"] for f in frames])
    row("  loom - do-nothing (budget <= 8)", [f["loom_skip_added_ns"] - f["noop_added_ns"] for f in frames])
    row("+ torch.compile hook, frames it skips", [f.get("torch_skip_added_ns", "n/a") for f in frames])
    row(
        "  loom / torch added cost (budget < 0.5)",
        [
            f["loom_skip_added_ns"] / f["torch_skip_added_ns"] if "torch_skip_added_ns" in f else "n/a"
            for f in frames
        ],
        "{:.2f}",
    )
    calls = [r["calls"] for r in results]
    print(f"leaf(x) called {LEAF_CALLS} times from a loop; ns per call added over no hook")
    row("no hook (ns per call, absolute)", [c["none_ns_per_call"] for c in calls], "{:.1f}")
    for key, label in [
        ("skip", "hook installed, leaf SKIP"),
        ("hit_bool_guard", "cache hit, C guard (bool) + replacement"),
        ("hit_lambda_guard", "cache hit, lambda guard + replacement"),
        ("hit_f_locals_guard", "cache hit, f_locals guard + replacement"),
        ("replacement_from_callback", "callback returns a code object each call"),
        ("callback_returns_none", "callback returns None each call"),
    ]:
        row(label, [c[key] for c in calls])
    if all("depth" in r for r in results):
        print("deepest recursion reached with sys.setrecursionlimit(10**6) (probes stop at 200000)")
        for mode, label in DEPTH_MODES.items():
            row(label, [f"{r['depth'][mode]['depth']}" for r in results], "{}")
            row("  then fails by", [r["depth"][mode]["fails_by"] for r in results], "{}")


def all_pythons(args):
    results = []
    for venv in sorted(ROOT.glob(".venv*")):
        python = venv / "bin" / "python"
        if not python.exists():
            continue
        cmd = [str(python), __file__, "--json", "--rounds", str(args.rounds)]
        if args.depth:
            cmd.append("--depth")
        if args.no_torch:
            cmd.append("--no-torch")
        print(f"[bench] {venv.name} ...", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, capture_output=True, text=True, check=True)
        results.append(json.loads(proc.stdout))
    results.sort(key=lambda r: tuple(int(p) for p in r["python"].split(".")))
    return results


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=25, help="interleaved rounds (best of N)")
    parser.add_argument("--depth", action="store_true", help="also bisect the reachable recursion depth")
    parser.add_argument("--no-torch", action="store_true", help="skip the torch.compile comparison")
    parser.add_argument("--all-pythons", action="store_true", help="run every .venv* of the repo, one table")
    parser.add_argument("--json", action="store_true", help="print this Python's results as JSON")
    args = parser.parse_args()
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    if args.all_pythons:
        report(all_pythons(args))
        return 0
    result = measure(args)
    if args.json:
        print(json.dumps(result))
    else:
        report([result])
    return 0


if __name__ == "__main__":
    sys.exit(main())
