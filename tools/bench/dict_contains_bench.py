#!/usr/bin/env python3
"""What a DictContains guard adds to a guard check: ``'forward' not in L['m'].__dict__``.

The translator installs one per method looked up on a module or object, so its cost is per guard, per
call. Each variant is a compiled check on a dict of locals; the cost of a guard is the difference
between two checks that differ only by it (the same loop and call overhead in both):

* ``type only``: ``type(L['m']) is M`` - the guard the translator has on the object anyway;
* ``+ absent``: and ``'forward' not in L['m'].__dict__`` (reads ``__dict__``, then one lookup);
* ``+ absent x2``: and ``'__call__' not in L['m'].__dict__`` too (the dict is read once: the second
  guard is the lookup alone);
* on a plain dict local, ``L['d'] is not None`` against ``'k' in L['d']`` (the lookup alone).

for an ``nn.Linear`` and for a plain object, on both back ends. Timing as tools/bench/guards_bench.py:
per-thread CPU time, the fastest of interleaved rounds.

    .venv/bin/python tools/bench/dict_contains_bench.py [--rounds 15] [--number 50000]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import torch

import loom_guards as lg
from loom_guards import Attr, DictContains, Local, NotNone, TypeMatch

sys.path.insert(0, str(Path(__file__).parent))
from guards_bench import per_call_ns


class Plain:
    def __init__(self) -> None:
        self.w = 1
        self.b = 2

    def forward(self) -> int:
        return self.w


def variants(obj: Any) -> dict[str, tuple[list, dict]]:
    m, d = Local("m"), Attr(Local("m"), "__dict__")
    typed = TypeMatch(m, type(obj))
    absent = DictContains(d, "forward", present=False)
    absent2 = DictContains(d, "__call__", present=False)
    plain = {"k": 1, **{f"x{i}": i for i in range(8)}}
    return {
        "type only": ([typed], {"m": obj}),
        "+ absent": ([typed, absent], {"m": obj}),
        "+ absent x2": ([typed, absent, absent2], {"m": obj}),
        "dict: not None": ([NotNone(Local("d"))], {"d": plain}),
        "dict: 'k' in": ([DictContains(Local("d"), "k")], {"d": plain}),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--number", type=int, default=50000, help="calls per round")
    args = parser.parse_args()
    backends = [("pure", False)]
    if lg.accelerator_available():
        backends.insert(0, ("accel", True))
    else:
        print(f"note: accelerator unavailable ({lg.accelerator_error()})", file=sys.stderr)
    print(f"torch {torch.__version__}, Python {sys.version.split()[0]}; per-thread CPU ns per check, "
          f"best of {args.rounds} interleaved rounds x {args.number} calls\n")
    for obj in (torch.nn.Linear(2, 2), Plain()):
        fns: dict[str, tuple[Callable, dict]] = {}
        for label, accel in backends:
            for name, (guards, frame) in variants(obj).items():
                check = lg.compile(guards, accelerate=accel)
                if not check(frame):
                    raise SystemExit(f"{name} does not pass: {check.why_failed(frame)}")
                fns[f"{label} {name}"] = (check, frame)
        best = {k: float("inf") for k in fns}
        for _ in range(args.rounds):
            for k, (f, a) in fns.items():
                best[k] = min(best[k], per_call_ns(f, a, args.number))
        print(type(obj).__qualname__)
        for label, _ in backends:
            b = {k.split(" ", 1)[1]: v for k, v in best.items() if k.startswith(label + " ")}
            for k, v in b.items():
                print(f"  {label:5s} {k:16s} {v:8.1f} ns")
            with_read = b["+ absent"] - b["type only"]
            second = b["+ absent x2"] - b["+ absent"]
            lookup = b["dict: 'k' in"] - b["dict: not None"]
            print(f"  {label:5s} => DictContains with its __dict__ read {with_read:6.1f} ns, a second one on the "
                  f"same dict {second:6.1f} ns, on a dict local {lookup:6.1f} ns")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
