#!/usr/bin/env python3
"""What code loom does not compile costs, side by side with torch.compile, from one run.

    .venv/bin/python tools/bench/skip_bench.py            # ~1-2 minutes on a 2-core machine
    .venv/bin/python tools/bench/skip_bench.py --rounds 3 # quicker, noisier

Rows (extra nanoseconds over plain Python, per frame or per call; best of interleaved rounds, per-thread
CPU time, one torch thread, no eval function left installed before an eager timing):

1. a compiled function, a graph break, then a recursive pure-Python helper (``fib(24)``, 150,049
   frames): loom, torch.compile, and a do-nothing C eval function (the floor any PEP 523 hook pays
   when it stays installed). Goal: loom <= 0.5x torch's extra cost.
2. the same helper passed to the compiler directly (``compile(fib)(24)``). Same goal.
3. a loop of 150,000 plain calls reached after a graph break: no regression against eager.
4. per-call overhead of a tiny compiled function (``sin(x) + 1``), and whether loom's guards run on
   the C++ accelerator (a plain ``pip install`` builds it at first import: see loom-guards' README).

Each compiler gets its own copy of the helpers, so one compiler's marks never serve the other.
"""

from __future__ import annotations

import argparse
import sys
import time
import types
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import facade_bench  # the shared timing helpers (this folder is on sys.path above)

FIB_K = 24
LOOP_N = 150_000

HELPERS = '''
def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)

def leaf(i):
    return i + 1

def loop(n):
    total = 0
    for i in range(n):
        total += leaf(i)
    return total
'''


def helpers(name: str) -> types.SimpleNamespace:
    """A fresh copy of the pure-Python helpers, in a module of its own (registered: Dynamo imports it)."""
    module = types.ModuleType(f"skip_bench_{name}")
    sys.modules[module.__name__] = module
    exec(compile(HELPERS, __file__, "exec"), module.__dict__)
    return types.SimpleNamespace(**{k: getattr(module, k) for k in ("fib", "leaf", "loop")})


def frames_of_fib(k: int) -> int:
    return 1 if k < 2 else 1 + frames_of_fib(k - 1) + frames_of_fib(k - 2)


def outer_functions(h: types.SimpleNamespace, graph_break) -> tuple:
    import torch

    def after_break(x, k):
        y = torch.sin(x)
        graph_break()
        return y + h.fib(k)

    def loop_after_break(x, n):
        y = torch.sin(x)
        graph_break()
        return y, h.loop(n)

    return after_break, loop_after_break


def measure(rounds: int) -> dict:
    import torch
    import torch._dynamo

    import loom
    import loom_guards
    from loom_framehook import _framehook

    torch.set_num_threads(1)
    x = torch.randn(4)
    plain, mine, theirs, floor = helpers("plain"), helpers("loom"), helpers("torch"), helpers("noop")
    plain_break, plain_loop = outer_functions(plain, lambda: None)
    floor_break, floor_loop = outer_functions(floor, lambda: None)
    loom_break, loom_loop = (loom.compile(f, backend="eager") for f in outer_functions(mine, loom.graph_break))
    torch_break, torch_loop = (torch.compile(f, backend="eager")
                               for f in outer_functions(theirs, torch._dynamo.graph_break))
    loom_fib, torch_fib = loom.compile(mine.fib, backend="eager"), torch.compile(theirs.fib, backend="eager")
    for k in (1, FIB_K, FIB_K):  # warm up as a user's program would: a small call, then the real ones
        for fn in (loom_break, torch_break):
            assert torch.equal(fn(x, k), plain_break(x, k))
        assert loom_fib(k) == torch_fib(k) == plain.fib(k)
    for fn in (loom_loop, torch_loop):
        fn(x, 10), fn(x, LOOP_N)

    def with_noop_hook(fn, *args):
        _framehook._install_test_hook("noop")
        try:
            return fn(*args)
        finally:
            _framehook._install_test_hook("off")

    ns = facade_bench.best_per_call_ns
    fib_frames = frames_of_fib(FIB_K)
    row1 = ns({"eager": lambda: plain_break(x, FIB_K), "loom": lambda: loom_break(x, FIB_K),
               "torch": lambda: torch_break(x, FIB_K), "noop": lambda: with_noop_hook(floor_break, x, FIB_K)}, 1, rounds)
    row2 = ns({"eager": lambda: plain.fib(FIB_K), "loom": lambda: loom_fib(FIB_K), "torch": lambda: torch_fib(FIB_K),
               "noop": lambda: with_noop_hook(floor.fib, FIB_K)}, 1, rounds)
    row3 = ns({"eager": lambda: plain_loop(x, LOOP_N), "loom": lambda: loom_loop(x, LOOP_N),
               "torch": lambda: torch_loop(x, LOOP_N), "noop": lambda: with_noop_hook(floor_loop, x, LOOP_N)}, 1, rounds)

    def extra(row: dict, per: int) -> dict:
        return {k: (v - row["eager"]) / per for k, v in row.items() if k != "eager"} | {"eager": row["eager"] / per}

    return {
        "after_break": extra(row1, fib_frames),
        "direct": extra(row2, fib_frames),
        "loop": extra(row3, LOOP_N),
        "per_call_us": facade_bench.per_call(rounds),
        "accelerated": loom_guards.accelerator_available(),
        "loom_stats": loom.stats(),
    }


def report(result: dict) -> None:
    print(f"extra ns over plain Python (best of interleaved rounds; fib({FIB_K}) = {frames_of_fib(FIB_K)} frames)")
    print(f"  {'':<52}{'eager':>9}{'noop hook':>11}{'loom':>9}{'torch':>9}{'loom/torch':>12}")
    rows = [("after_break", "compiled fn -> graph break -> fib, per fib frame"),
            ("direct", "compile(fib)(24), per frame"),
            ("loop", f"{LOOP_N} plain calls after a break, per call")]
    for key, label in rows:
        r = result[key]
        ratio = r["loom"] / r["torch"] if r["torch"] > 0 else float("nan")
        print(f"  {label:<52}{r['eager']:>9.1f}{r['noop']:>+11.1f}{r['loom']:>+9.1f}{r['torch']:>+9.1f}{ratio:>12.2f}")
    pc = result["per_call_us"]
    loom_extra, torch_extra = pc["loom"] - pc["eager"], pc["torch"] - pc["eager"]
    print(f"per-call overhead of sin(x) + 1: loom +{loom_extra:.2f} us, torch +{torch_extra:.2f} us, "
          f"ratio {loom_extra / torch_extra:.2f} (guards on the C++ accelerator: {result['accelerated']})")
    print(f"loom.stats(): {result['loom_stats']}")
    print("(extra cost can read slightly negative: a frame run with no hook at all costs what eager costs)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    started = time.perf_counter()
    report(measure(args.rounds))
    print(f"({time.perf_counter() - started:.0f} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
