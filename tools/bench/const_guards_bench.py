#!/usr/bin/env python3
"""What the guards over constants cost in a real guard set: the TinyGPT's, as loom-symbolic builds it.

For every ``nn.Module`` it inlines, the translator guards the module's four hook dicts empty, plus
torch's process-wide hook dicts: ``Length(Const(module._forward_hooks), 0)`` and so on (the dicts are
reached as constants because the module is guarded by identity and hooks mutate them in place). An
attribute that is missing on an object adds ``DictContains(Attr(Const(cls), "__dict__"), name,
present=False)`` for each class of its MRO. The accelerator fuses all of them into one ``C_CONSTS``
instruction.

Compiled checks, on a dict of locals (accelerated, and pure Python with ``--pure``):

* ``all``: the whole guard set of ``TinyGPT(layers=2).forward``;
* ``no consts``: the same without the guards whose sources all start at a ``Const``;
* ``+ class misses``: ``all`` plus ``'missing' not in C.__dict__`` for each class of each module
  in the model (what a ``hasattr(module, 'missing')`` miss guards, per class of its MRO).

The guards over constants cost ``all`` - ``no consts``. Timing as tools/bench/guards_bench.py: per-thread
CPU time, the fastest of interleaved rounds.

    .venv/bin/python tools/bench/const_guards_bench.py [--rounds 15] [--number 20000] [--pure]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import torch

import loom_guards as lg
import loom_symbolic
from loom_guards import Attr, Const, DictContains

sys.path.insert(0, str(Path(__file__).parent))
import facade_bench  # the shared models (loaded by path)
from guards_bench import per_call_ns


def on_constants(g: lg.Guard) -> bool:
    """Whether every source of ``g`` starts at a ``Const`` (the guard reads nothing from the frame)."""
    return bool(g.sources) and all(isinstance(s.chain()[0], Const) for s in g.sources)


def class_misses(model: torch.nn.Module) -> list[lg.Guard]:
    classes = {klass for m in model.modules() for klass in type(m).__mro__ if klass.__module__ != "builtins"}
    return [DictContains(Attr(Const(k), "__dict__"), "missing", present=False)
            for k in sorted(classes, key=lambda k: k.__qualname__)]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=20000, help="calls per round")
    parser.add_argument("--pure", action="store_true", help="time the pure-Python back end too")
    args = parser.parse_args()
    model, ids = facade_bench.make_model(facade_bench.load_models(), "gpt", 2)
    fn = type(model).forward
    guards = list(loom_symbolic.translate_function(fn, model, ids).guards)
    consts = [g for g in guards if on_constants(g)]
    misses = class_misses(model)
    sets = {
        "all": guards,
        "no consts": [g for g in guards if not on_constants(g)],
        "+ class misses": guards + misses,
    }
    frame = {"self": model, "ids": ids}
    backends = [("accel", True)] if lg.accelerator_available() else []
    if args.pure or not backends:
        backends.append(("pure", False))
    fns: dict[str, Callable] = {}
    for label, accel in backends:
        for name, gs in sets.items():
            check = lg.compile(gs, f_globals=fn.__globals__, accelerate=accel)
            if not check(frame):
                raise SystemExit(f"{name} does not pass: {check.why_failed(frame)}")
            fns[f"{label}|{name}"] = check
    best = {k: float("inf") for k in fns}
    for _ in range(args.rounds):
        for k, f in fns.items():
            best[k] = min(best[k], per_call_ns(f, frame, args.number))
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}; TinyGPT(layers=2): {len(guards)} guards, "
          f"{len(consts)} over constants ({sum(isinstance(g, lg.Length) for g in consts)} Length), "
          f"{len(misses)} class misses")
    print(f"per-thread CPU ns per check, best of {args.rounds} interleaved rounds x {args.number} calls")
    for label, _ in backends:
        b = {k.split("|", 1)[1]: v for k, v in best.items() if k.startswith(label + "|")}
        for name, v in b.items():
            print(f"  {label:5s} {name:15s} {v:8.0f} ns")
        share = b["all"] - b["no consts"]
        miss = b["+ class misses"] - b["all"]
        print(f"  {label:5s} => the {len(consts)} guards over constants {share:6.0f} ns "
              f"({share / max(len(consts), 1):5.1f} ns each); {len(misses)} class misses {miss:6.0f} ns "
              f"({miss / len(misses):5.1f} ns each)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
