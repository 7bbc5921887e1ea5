"""loom's ``c`` backend against inductor (torch.compile's default) on the CPU: per-call host overhead and the
speed of two fused kernels, in one process, 1 thread by default.

    python tools/bench/c_overhead_bench.py [--threads N] [--rounds R]

1. **Overhead**: a graph of 1, 10 and 50 independent tiny kernels (a 4-element ``sin(x) + 1`` per input):
   the time of one call is almost all host code. Both compilers are reached through torch.compile (the same
   TorchDynamo guards in front of each), so the difference is the compiled graph's own call.
2. **Kernels**: a pointwise chain (``gelu(x * 2 + y) - x`` at 512x2048) and a softmax (512x1024): eager,
   inductor and loom ``c``. Timed in interleaved rounds after a common warm-up (median of rounds).
3. **Lone ops**: a single small op (``x + 1``, ``x.clone()``) at several sizes, generated kernel against
   the same graph run through ATen by ``aot_eager`` (what the ``c`` backend runs when it does not generate
   kernels; the column is labelled eager): the measurements behind the rule "a kernel slower than the ATen op it replaces is not generated".

Prints times and ratios (loom / inductor, loom / eager): quote ratios from one run, not absolute times.
"""

from __future__ import annotations

import argparse
import statistics
import time

import torch

import loom_backends

CLOCK = time.perf_counter


def timed(fn, args, number):
    start = CLOCK()
    for _ in range(number):
        fn(*args)
    return (CLOCK() - start) / number


def interleaved(fns, args, rounds, number):
    """Median seconds per call of each fn, timed in interleaved rounds after a warm-up."""
    for fn in fns.values():
        timed(fn, args, max(3, number // 10))
    samples = {name: [] for name in fns}
    for _ in range(rounds):
        for name, fn in fns.items():
            samples[name].append(timed(fn, args, number))
    return {name: statistics.median(s) for name, s in samples.items()}


def compiled(fn, backend):
    torch._dynamo.reset()
    return torch.compile(fn, backend=backend, dynamic=False)


def many_kernels(n):
    def fn(*xs):
        return [torch.sin(x) + 1 for x in xs]

    return fn, [torch.randn(4) for _ in range(n)]


def pointwise_chain(x, y):
    return torch.nn.functional.gelu(x * 2 + y) - x


def softmax(x):
    return torch.softmax(x, -1)


def report(title, times):
    loom, ind, eager = times.get("loom c"), times.get("inductor"), times.get("eager")
    parts = [f"{name} {t * 1e6:9.1f} us" for name, t in times.items()]
    ratios = []
    if ind:
        ratios.append(f"loom/inductor {loom / ind:5.2f}")
    if eager:
        ratios.append(f"loom/eager {loom / eager:5.2f}")
    print(f"{title:<34} " + "  ".join(parts) + "   " + "  ".join(ratios))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--rounds", type=int, default=7)
    parser.add_argument(
        "--clock", choices=("wall", "cpu"), default="wall",
        help="cpu: this thread's CPU time (steady on a loaded machine; 1 thread only)",
    )
    args = parser.parse_args()
    global CLOCK
    if args.clock == "cpu":
        if args.threads != 1:
            parser.error("--clock cpu measures one thread: use --threads 1")
        CLOCK = time.thread_time
    torch.set_num_threads(args.threads)
    c = loom_backends.get("c")
    print(f"threads {torch.get_num_threads()}, clock {args.clock}, torch {torch.__version__}")
    with torch.no_grad():
        print("\n# per-call overhead (tiny kernels: the host code is the cost)")
        for n in (1, 10, 50):
            fn, inputs = many_kernels(n)
            fns = {"loom c": compiled(fn, c)}
            fns["loom c"](*inputs)
            fns["inductor"] = compiled(fn, "inductor")
            fns["inductor"](*inputs)
            report(f"{n} kernels", interleaved(fns, inputs, args.rounds, 200))

        print("\n# fused kernels")
        x, y = torch.randn(512, 2048), torch.randn(2048)
        for title, fn, inputs in (
            ("pointwise chain 512x2048", pointwise_chain, (x, y)),
            ("softmax 512x1024", softmax, (torch.randn(512, 1024),)),
        ):
            fns = {"eager": fn, "loom c": compiled(fn, c)}
            fns["loom c"](*inputs)
            fns["inductor"] = compiled(fn, "inductor")
            fns["inductor"](*inputs)
            torch.testing.assert_close(fns["loom c"](*inputs), fn(*inputs), atol=1e-5, rtol=1e-5)
            report(title, interleaved(fns, inputs, args.rounds, 20))

        print("\n# lone ops: generated kernel against the ATen op (graph compiled without the rule)")
        from loom_backends.c import config

        limit = config.c_min_elements_for_lone_op
        config.c_min_elements_for_lone_op = 0
        try:
            for numel in (16, 1024, 16384, 262144):
                for title, fn in (("add", lambda a: a + 1), ("clone", lambda a: a.clone())):
                    inputs = (torch.randn(numel),)
                    fns = {"loom c": compiled(fn, c)}
                    fns["loom c"](*inputs)
                    fns["eager"] = compiled(fn, loom_backends.get("aot_eager"))  # what the fallback runs
                    fns["eager"](*inputs)
                    report(f"{title} {numel}", interleaved(fns, inputs, args.rounds, 200))
        finally:
            config.c_min_elements_for_lone_op = limit


if __name__ == "__main__":
    main()
