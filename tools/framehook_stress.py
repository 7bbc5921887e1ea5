#!/usr/bin/env python3
"""The longer loom-framehook stress run: the randomized stress program under ``-X dev`` on every Python.

    python3 tools/framehook_stress.py [--seconds 60] [--threads 4] [--seed 1] [--python PATH ...]

Runs packages/framehook/tests/stress_program.py (random recursion, generators, closures, replacements,
entries with passing/failing/raising guards, raising callbacks, invalid results, cache clears, several
threads; every result checked against the unhooked answer and sentinel reference counts compared) with
each interpreter (default: every .venv* of the repository) and reports each one's summary line. The
test suite runs the same program for 2 seconds; this is for minutes, or under valgrind:

    PYTHONMALLOC=malloc valgrind -q .venv-py3.12/bin/python -X dev \\
        packages/framehook/tests/stress_program.py --seconds 60
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PROGRAM = ROOT / "packages" / "framehook" / "tests" / "stress_program.py"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--python", action="append", help="interpreter(s) (default: every .venv* here)")
    args = parser.parse_args()
    pythons = args.python or [str(v / "bin" / "python") for v in sorted(ROOT.glob(".venv*"))]
    failed = 0
    for python in pythons:
        if not Path(python).exists():
            continue
        cmd = [python, "-X", "dev", str(PROGRAM), "--seconds", str(args.seconds), "--threads",
               str(args.threads), "--seed", str(args.seed)]
        proc = subprocess.run(cmd, capture_output=True, text=True, env={**os.environ, "PYTHONFAULTHANDLER": "1"})
        status = "ok" if proc.returncode == 0 else f"FAILED (rc={proc.returncode})"
        print(f"{status:<16} {proc.stdout.strip()}")
        if proc.returncode != 0:
            failed += 1
            print(proc.stderr[-4000:])
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
