#!/usr/bin/env python3
"""Run CPython's own regression tests under loom_framehook and compare with a run without it.

    python3 tools/cpython_regrtest.py                       # every .venv* of the repo, default modules
    python3 tools/cpython_regrtest.py --python .venv-py3.12/bin/python --module test_generators
    python3 tools/cpython_regrtest.py --modes base,none     # only some modes
    python3 tools/cpython_regrtest.py --json out.json       # also write every outcome

A check no one here wrote: each test module of the interpreter's own test suite (lib/python3.X/test/)
runs in a fresh process three times,

    base    no hook;
    noop    a control: a do-nothing C eval function (loom_framehook's private test hook), to tell
            CPython's own behaviour under any PEP 523 hook apart from loom_framehook's;
    none    a callback that returns None for every frame (the callback runs on every first entry);
    entry   a callback that returns Entry(<frame.f_code.replace()>, guard) for every function frame,
            so every later call of every function runs a copy of its code, served from the cache by
            a guard that reads the frame's f_locals (None for module and class bodies);

with the callback set in the main thread and in every threading.Thread (Thread._bootstrap_inner is
wrapped). Each test case's outcome is recorded through unittest, and the report lists the cases that
fail (or crash the process) under a hook but pass without it, and which of those also fail under the
do-nothing hook (then CPython itself behaves differently whenever any eval function is installed). Not part of the test suite: it takes
minutes. It needs only the python given and loom_framehook installed in it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_MODULES = [
    "test_generators",
    "test_coroutines",
    "test_asyncgen",
    "test_exceptions",
    "test_contextlib",
    "test_with",
    "test_scope",
    "test_funcattrs",
    "test_keywordonlyarg",
    "test_positional_only_arg",
    "test_threading",
    "test_sys_settrace",
]
MODES = ["base", "noop", "none", "entry"]
CO_OPTIMIZED = 0x0001


# --- the child: one module, one mode --------------------------------------------------------------


def make_callback(mode):
    import loom_framehook as fh

    if mode == "none":
        return lambda frame: None

    def guard(frame):
        return frame.f_locals is not None  # builds the arguments dict on every call

    def entry(frame):
        code = frame.f_code
        if code.co_flags & CO_OPTIMIZED:
            return fh.Entry(code.replace(), guard)
        return None

    return entry


def child(mode, module, out_path):
    import threading
    import unittest

    outcomes = {}

    class Recording(unittest.TextTestResult):
        def addSuccess(self, test):
            super().addSuccess(test)
            outcomes[test.id()] = ["ok", ""]

        def addFailure(self, test, err):
            super().addFailure(test, err)
            outcomes[test.id()] = ["FAIL", self._exc_info_to_string(err, test)[-2000:]]

        def addError(self, test, err):
            super().addError(test, err)
            outcomes[test.id()] = ["ERROR", self._exc_info_to_string(err, test)[-2000:]]

        def addSkip(self, test, reason):
            super().addSkip(test, reason)
            outcomes[test.id()] = ["skip", reason]

        def addExpectedFailure(self, test, err):
            super().addExpectedFailure(test, err)
            outcomes[test.id()] = ["expected-failure", ""]

        def addUnexpectedSuccess(self, test):
            super().addUnexpectedSuccess(test)
            outcomes[test.id()] = ["unexpected-success", ""]

        def addSubTest(self, test, subtest, err):
            super().addSubTest(test, subtest, err)
            if err is not None:
                kind = "FAIL" if issubclass(err[0], test.failureException) else "ERROR"
                outcomes[subtest.id()] = [kind, self._exc_info_to_string(err, test)[-2000:]]

    def save(status):
        Path(out_path).write_text(json.dumps({"status": status, "outcomes": outcomes}))

    save("started")
    suite = unittest.defaultTestLoader.loadTestsFromName(f"test.{module}")
    if mode == "noop":
        from loom_framehook import _framehook

        _framehook._install_test_hook("noop")
    elif mode != "base":
        import loom_framehook as fh

        callback = make_callback(mode)
        original_bootstrap = threading.Thread._bootstrap_inner

        def bootstrap_inner(self):
            fh.set_callback(callback)
            try:
                original_bootstrap(self)
            finally:
                fh.set_callback(None)

        threading.Thread._bootstrap_inner = bootstrap_inner
        fh.set_callback(callback)
    started = time.monotonic()
    runner = unittest.TextTestRunner(stream=open(os.devnull, "w"), verbosity=0, resultclass=Recording)
    runner.run(suite)
    if mode == "noop":
        _framehook._install_test_hook("off")
    elif mode != "base":
        fh.set_callback(None)
    outcomes["<seconds>"] = ["info", f"{time.monotonic() - started:.1f}"]
    save("done")
    os._exit(0)  # don't let leftover threads or atexit hooks of the tests decide the exit status


# --- the parent ----------------------------------------------------------------------------------


def run_one(python, mode, module, timeout):
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "out.json"
        started = time.monotonic()
        try:
            proc = subprocess.run(
                [python, __file__, "--child", mode, module, str(out)],
                capture_output=True,
                text=True,
                timeout=timeout,
                cwd=tmp,
            )
            rc = proc.returncode
            tail = (proc.stdout + proc.stderr)[-3000:]
        except subprocess.TimeoutExpired as exc:
            rc = "timeout"
            tail = str(exc)
        data = json.loads(out.read_text()) if out.exists() else {"status": "no-output", "outcomes": {}}
        data["rc"] = rc
        data["seconds"] = round(time.monotonic() - started, 1)
        if data["status"] != "done" or rc != 0:
            data["tail"] = tail
        return data


def is_bad(outcome):
    return outcome in ("FAIL", "ERROR", "unexpected-success")


def compare(base, other):
    """Test ids that are bad in `other` but not in `base`; plus a process-level problem, if any."""
    new = sorted(
        tid
        for tid, (outcome, _) in other["outcomes"].items()
        if is_bad(outcome) and not is_bad(base["outcomes"].get(tid, ["missing", ""])[0])
    )
    process = None
    if other["status"] != "done" or other["rc"] != 0:
        process = f"process: status={other['status']} rc={other['rc']}"
    return new, process


def pythons_from_repo():
    found = []
    for venv in sorted(ROOT.glob(".venv*")):
        python = venv / "bin" / "python"
        if python.exists():
            found.append(str(python))
    return found


def version_of(python):
    out = subprocess.run([python, "-c", "import sys; print(sys.version.split()[0])"], capture_output=True, text=True)
    return out.stdout.strip()


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(*sys.argv[2:5])
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--python", action="append", help="interpreter(s) to use (default: every .venv*)")
    parser.add_argument("--module", action="append", help="test module(s) (default: the twelve of issue 3)")
    parser.add_argument("--modes", default=",".join(MODES), help="comma-separated subset of base,noop,none,entry")
    parser.add_argument("--timeout", type=int, default=1800, help="seconds per module and mode")
    parser.add_argument("--json", help="write every outcome to this file")
    args = parser.parse_args()
    pythons = [os.path.abspath(p) for p in (args.python or pythons_from_repo())]
    modules = args.module or DEFAULT_MODULES
    modes = args.modes.split(",")
    if "base" not in modes:
        modes.insert(0, "base")
    results = {}
    for python in pythons:
        version = version_of(python)
        for module in modules:
            for mode in modes:
                data = run_one(python, mode, module, args.timeout)
                results[(version, module, mode)] = data
                counts = {}
                for outcome, _ in data["outcomes"].values():
                    counts[outcome] = counts.get(outcome, 0) + 1
                print(
                    f"[regrtest] {version} {module:<26} {mode:<5} {data['seconds']:>7.1f}s "
                    f"status={data['status']} rc={data['rc']} "
                    + " ".join(f"{k}={v}" for k, v in sorted(counts.items()) if k != "info"),
                    flush=True,
                )
    versions = sorted({k[0] for k in results}, key=lambda v: tuple(map(int, v.split("."))))
    print()
    print("New failures under the hook (cases failing with it and passing without it);")
    print("'(k noop)': k of them also fail under the do-nothing C eval function (CPython's own behaviour):")
    header = f"{'module':<26}" + "".join(f"{v + ' ' + m:>22}" for v in versions for m in modes)
    print(header)
    details = []
    for module in modules:
        cells = []
        for version in versions:
            base = results[(version, module, "base")]
            for mode in modes:
                data = results[(version, module, mode)]
                if mode == "base":
                    bad = sum(1 for o, _ in data["outcomes"].values() if is_bad(o))
                    total = sum(1 for o, _ in data["outcomes"].values() if o != "info")
                    cell = f"{total} run, {bad} bad" if data["status"] == "done" else data["status"]
                else:
                    new, process = compare(base, data)
                    noop = results.get((version, module, "noop"))
                    inherent = {t for t in new if noop and mode != "noop" and is_bad(noop["outcomes"].get(t, ["", ""])[0])}
                    cell = ("CRASH " if process else "") + (f"{len(new)} new" if new or process else "none")
                    if inherent:
                        cell += f" ({len(inherent)} noop)"
                    for tid in new:
                        note = " [also fails under the do-nothing hook]" if tid in inherent else ""
                        details.append((version, mode, tid + note, data["outcomes"][tid][1]))
                    if process:
                        details.append((version, mode, f"{module}: {process}", data.get("tail", "")))
                cells.append(f"{cell:>22}")
        print(f"{module:<26}" + "".join(cells))
    if details:
        print()
        print("Details:")
        for version, mode, tid, text in details:
            print(f"--- {version} {mode} {tid}")
            print("    " + "\n    ".join(text.strip().splitlines()[-12:]))
    if args.json:
        Path(args.json).write_text(
            json.dumps({f"{v}|{m}|{mode}": d for (v, m, mode), d in results.items()}, indent=1)
        )
    return 1 if details else 0


if __name__ == "__main__":
    sys.exit(main())
