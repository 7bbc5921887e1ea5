#!/usr/bin/env python3
"""Who imports ``torch._dynamo`` (and ``torch._inductor``) during a compiled model's first call.

    .venv/bin/python tools/bench/first_imports.py pointwise          # a process over empty caches, then a warm one
    .venv/bin/python tools/bench/first_imports.py gpt2 --impl loom --frames 12

Runs ``cpu_bench``'s first-call child (``child_first_call``: the model run once eagerly, then its first
compiled inference call, then its first training step) for one workload in a fresh process, twice over
one ``LOOM_CACHE_DIR`` (the second process finds the caches the first filled), with a finder at the head
of ``sys.meta_path`` that only watches: when one of the watched modules is imported for the first time it
prints the stack that imported it (the innermost ``--frames`` frames outside importlib), then lets the
normal import go on. Also printed: the child's first-call times (CPU seconds of the process: the C
compiler's subprocess is not in them). ``docs/first-call.md`` says what these stacks showed.
"""

from __future__ import annotations

import argparse
import importlib.abc
import json
import os
import subprocess
import sys
import tempfile
import time
import traceback
from pathlib import Path

WATCHED = ("torch._dynamo", "torch._inductor", "torch._functorch.aot_autograd")


class _ImportWatcher(importlib.abc.MetaPathFinder):
    """Prints the stack of the first import of each watched module; finds nothing itself."""

    def __init__(self, frames: int) -> None:
        self.frames = frames

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name in WATCHED and name not in sys.modules:
            stack = [f for f in traceback.extract_stack()[:-1]
                     if "importlib" not in f.filename and not f.filename.startswith("<frozen")]
            print(f"first import of {name}:", file=sys.stderr)
            for frame in stack[-self.frames:]:
                where = frame.filename.rpartition("site-packages/")[2]
                print(f"    {where}:{frame.lineno} in {frame.name}", file=sys.stderr)
        return None


def child(workload: str, impl: str, frames: int) -> None:
    """One first-call child under the watcher; its result as JSON on the last line of stdout."""
    sys.meta_path.insert(0, _ImportWatcher(frames))
    sys.path.insert(0, str(Path(__file__).parent))
    import cpu_bench

    cpu_bench.time.perf_counter = time.process_time  # CPU time of the process: steadier on a shared machine
    print(json.dumps(cpu_bench.child_first_call(workload, impl, "c")))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("workload")
    parser.add_argument("--impl", default="loom", choices=("loom", "inductor"))
    parser.add_argument("--frames", type=int, default=8, help="innermost frames printed per import")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.workload, args.impl, args.frames)
        return
    with tempfile.TemporaryDirectory(prefix="loom-first-imports-") as tmp:
        env = {**os.environ, "LOOM_CACHE_DIR": f"{tmp}/loom", "TORCHINDUCTOR_CACHE_DIR": f"{tmp}/inductor",
               "OMP_NUM_THREADS": "1"}
        for when in ("cold", "warm"):
            print(f"--- {args.workload}, {args.impl}, {when} caches", flush=True)
            proc = subprocess.run([sys.executable, __file__, args.workload, "--impl", args.impl, "--frames",
                                   str(args.frames), "--child"], capture_output=True, text=True, env=env)
            print(proc.stderr.rstrip())
            print(proc.stdout.strip().splitlines()[-1] if proc.stdout.strip() else f"exit {proc.returncode}")


if __name__ == "__main__":
    main()
