#!/usr/bin/env python3
"""A graph break inside a loop body: loom beside torch.compile, at several loop lengths, from one run.

    .venv/bin/python tools/bench/loop_break_bench.py                 # lengths 4, 32, 100 (~2 minutes)
    .venv/bin/python tools/bench/loop_break_bench.py --lengths 4,32 --rounds 3
    .venv/bin/python tools/bench/loop_break_bench.py --backend default   # loom's code generator, inductor

Loops with a ``print`` in every pass (printing to a sink that drops the text: a break for both
compilers, no I/O cost): over an ``nn.ModuleList`` of Linear layers, over ``range(n)``, over a list of
tensors; and, with something that varies per pass, over the same layers: indexed by the loop counter
(``layers[i]``), each output appended to a list, gathered in a tuple grown with ``+=``, stored in a dict
by the counter, a string built up, a counter int used in arithmetic. Each (compiler, loop, length) runs in a fresh process: one cold first call, then the per-call
time of the compiled function, best of ``--rounds`` rounds of ``--repeat`` calls, per-thread CPU time, one
torch thread, beside eager in the same process. Both compilers use ``backend="eager"``.

Columns: frames compiled, recompiles, graphs and graph breaks after the first call (loom: ``loom.stats``;
torch: ``torch._dynamo.utils.counters``; torch skips a frame whose loop body breaks, so it compiles
nothing and runs the loop eagerly), whether a second identical call compiled anything, the first call's
time, the per-call time over eager, and loom's per-call time over torch's.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from typing import Any

WIDTH = 64
LOOPS = ("modules", "range", "tensors", "indexed", "append", "tuple", "dict", "string", "counter")
COMPILERS = ("loom", "torch")


class Sink:
    """A file that drops what is written: ``print(..., file=SINK)`` is a graph break without I/O."""

    def write(self, text: str) -> int:
        return len(text)

    def flush(self) -> None:
        pass


SINK = Sink()


def make_loop(kind: str, n: int) -> tuple[Any, tuple]:
    import torch

    torch.manual_seed(0)
    x = torch.randn(8, WIDTH)
    if kind == "modules":
        layers = torch.nn.ModuleList(torch.nn.Linear(WIDTH, WIDTH) for _ in range(n))

        def over_modules(x):
            for layer in layers:
                x = torch.relu(layer(x))
                print("layer", file=SINK)
            return x

        return over_modules, (x,)
    if kind == "range":

        def over_range(x, n):
            for i in range(n):
                x = x * 0.99 + i
                print("pass", file=SINK)
            return x

        return over_range, (x, n)
    if kind in VARYING:
        layers = torch.nn.ModuleList(torch.nn.Linear(WIDTH, WIDTH) for _ in range(n))
        return VARYING[kind](layers), (x,)
    tensors = [torch.randn(WIDTH) for _ in range(n)]

    def over_tensors(x, ts):
        for t in ts:
            x = x + t.sin()
            print("item", file=SINK)
        return x

    return over_tensors, (x, tensors)


def _indexed(layers):
    import torch

    def indexed(x):
        for i in range(len(layers)):
            x = torch.relu(layers[i](x))
            print("layer", file=SINK)
        return x

    return indexed


def _append(layers):
    import torch

    def append(x):
        outs = []
        for layer in layers:
            x = torch.relu(layer(x))
            print("layer", file=SINK)
            outs.append(x)
        return x, outs

    return append


def _tuple(layers):
    import torch

    def gather(x):
        states = ()
        for layer in layers:
            x = torch.relu(layer(x))
            print("layer", file=SINK)
            states += (x,)
        return x, states

    return gather


def _dict(layers):
    import torch

    def by_index(x):
        found = {}
        for i, layer in enumerate(layers):
            x = torch.relu(layer(x))
            print("layer", file=SINK)
            found[i] = x
        return x, found

    return by_index


def _string(layers):
    import torch

    def named(x):
        name = ""
        for layer in layers:
            x = torch.relu(layer(x))
            print("layer", file=SINK)
            name += "L"
        return x, name

    return named


def _counter(layers):
    import torch

    def counted(x):
        k = 0
        for layer in layers:
            x = torch.relu(layer(x)) * (1 + k * 0.01)
            print("layer", file=SINK)
            k += 1
        return x, k

    return counted


#: Loops over ``n`` layers where something varies per pass (see the module docstring).
VARYING = {"indexed": _indexed, "append": _append, "tuple": _tuple, "dict": _dict, "string": _string,
           "counter": _counter}


def _loom_counts() -> dict[str, int]:
    import loom

    s = loom.stats()
    return {"frames": s["frames_compiled"], "recompiles": s["recompiles"], "graphs": s["graphs"],
            "breaks": s["graph_breaks"]}


def _torch_counts() -> dict[str, int]:
    from torch._dynamo.utils import counters, guard_failures

    return {"frames": counters["frames"]["ok"], "recompiles": sum(len(v) for v in guard_failures.values()),
            "graphs": counters["stats"]["unique_graphs"], "breaks": sum(counters["graph_break"].values())}


def _warm_up(x):
    import torch

    return torch.sin(x) + 1


def per_call_us(fn: Any, args: tuple, repeat: int, rounds: int) -> float:
    best = float("inf")
    for _ in range(rounds):
        started = time.thread_time_ns()
        for _ in range(repeat):
            fn(*args)
        best = min(best, (time.thread_time_ns() - started) / repeat)
    return best / 1e3


def child(compiler: str, kind: str, n: int, repeat: int, rounds: int, backend: str) -> dict[str, Any]:
    import torch

    torch.set_num_threads(1)
    fn, args = make_loop(kind, n)
    if compiler == "loom":
        import loom

        compile_fn, counts, reset = loom.compile, _loom_counts, loom.reset
    else:
        import torch._dynamo

        compile_fn, counts, reset = torch.compile, _torch_counts, torch._dynamo.reset
    # The same unrelated warm-up compile on both sides: one-off imports do not count as this loop's.
    compile_fn(_warm_up, backend="eager")(torch.randn(8))
    reset()
    if compiler == "torch":
        from torch._dynamo.utils import counters

        counters.clear()
    if backend != "eager":
        backend = "default" if compiler == "loom" else "inductor"
    compiled = compile_fn(fn, backend=backend)
    with torch.no_grad():
        expected = fn(*args)
        eager_us = per_call_us(fn, args, repeat, rounds)
        started = time.thread_time()
        out = compiled(*args)
        first_ms = (time.thread_time() - started) * 1e3
        first = counts()
        compiled(*args)
        second = counts()
        compiled_us = per_call_us(compiled, args, repeat, rounds)
    ok = _same(out, expected)
    return {**first, "ok": ok, "second_compiles": second["frames"] - first["frames"], "first_ms": first_ms,
            "eager_us": eager_us, "us": compiled_us}


def _same(actual: Any, expected: Any) -> bool:
    """Whether two results agree (tensors within the last bit: generated sin differs from ATen's there)."""
    import torch

    if isinstance(expected, torch.Tensor):
        return bool(torch.allclose(actual, expected, rtol=1e-4, atol=1e-5))
    if isinstance(expected, (list, tuple)):
        return type(actual) is type(expected) and len(actual) == len(expected) and all(map(_same, actual, expected))
    if isinstance(expected, dict):
        return list(actual) == list(expected) and all(_same(actual[k], expected[k]) for k in expected)
    return actual == expected


def run_child(compiler: str, kind: str, n: int, repeat: int, rounds: int, backend: str) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", compiler, kind, str(n), str(repeat), str(rounds), backend]
    env = {k: v for k, v in os.environ.items() if k not in ("LOOM_LOGS", "TORCH_LOGS")}
    env["PYTHONWARNINGS"] = "ignore"
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=900, env=env)
    if proc.returncode != 0:
        raise RuntimeError(f"{' '.join(cmd)} failed:\n{proc.stderr[-3000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--lengths", default="4,32,100")
    parser.add_argument("--repeat", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--backend", choices=("eager", "default"), default="eager",
                        help="eager: both eager; default: loom's code generator beside inductor")
    parser.add_argument("--loops", default=",".join(LOOPS))
    parser.add_argument("--child", nargs=6, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        compiler, kind, n, repeat, rounds, backend = args.child
        print(json.dumps(child(compiler, kind, int(n), int(repeat), int(rounds), backend)))
        return 0
    header = (f"{'loop':<8} {'n':>4} {'compiler':<6} {'frames':>6} {'recomp':>6} {'graphs':>6} {'breaks':>6} "
              f"{'2nd call':>8} {'first call':>11} {'per call':>10} {'/eager':>7} {'loom/torch':>10}")
    print(f"a print in every pass; per-call: best of rounds, thread CPU time, one torch thread, backend {args.backend}")
    print(header)
    print("-" * len(header))
    for kind in args.loops.split(","):
        for n in (int(v) for v in args.lengths.split(",")):
            rows = {c: run_child(c, kind, n, args.repeat, args.rounds, args.backend) for c in COMPILERS}
            for c in COMPILERS:
                r = rows[c]
                ratio = f"{rows['loom']['us'] / rows['torch']['us']:>9.2f}x" if c == "loom" else ""
                torch_note = "  (the loop's frame runs uncompiled)" if c == "torch" and r["graphs"] == 0 else ""
                print(f"{kind:<8} {n:>4} {c:<6} {r['frames']:>6} {r['recompiles']:>6} {r['graphs']:>6} "
                      f"{r['breaks']:>6} {'none' if r['second_compiles'] == 0 else r['second_compiles']:>8} "
                      f"{r['first_ms']:>8.1f} ms {r['us']:>7.0f} us {r['us'] / r['eager_us']:>6.2f}x {ratio:>10}"
                      f"{torch_note}{'' if r['ok'] else '  WRONG RESULT'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
