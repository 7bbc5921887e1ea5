"""A short randomized stress run under -X dev, and recursion at the default and at a raised limit, in
subprocesses (a crash shows as a negative return code)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

HERE = Path(__file__).parent


def run(*args, timeout=120):
    env = {**os.environ, "PYTHONFAULTHANDLER": "1"}
    return subprocess.run(
        [sys.executable, "-X", "dev", *args], capture_output=True, text=True, timeout=timeout, env=env
    )


def test_stress_under_dev_mode():
    proc = run(str(HERE / "stress_program.py"), "--seconds", "2", "--threads", "3", "--seed", "7")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "sentinel refs 2->2" in proc.stdout, proc.stdout


@pytest.mark.parametrize("mode", ["off", "skip", "callback", "replace"])
def test_recursion_at_default_limit_does_not_crash(mode):
    depth = sys.getrecursionlimit()
    proc = run(str(HERE / "depth_program.py"), mode, str(depth))
    assert proc.returncode == 0, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    lines = proc.stdout.split()
    assert lines[0] in ("ok", "RecursionError") and lines[1] == "consistent", proc.stdout


@pytest.mark.parametrize("mode", ["skip", "replace"])
def test_moderate_recursion_succeeds(mode):
    # Well inside what every version reaches with the hook (3.12 is the tightest: ~740 frames).
    proc = run(str(HERE / "depth_program.py"), mode, "500")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["ok", "consistent"]


HOOKED_MODES = ["skip", "callback", "replace"]


@pytest.mark.parametrize("depth", [20_000, 200_000])
@pytest.mark.parametrize("mode", [*HOOKED_MODES, "skip_recursive"])
def test_deep_recursion_at_a_raised_limit_never_crashes(mode, depth):
    # 200,000 frames are far past the C stack (8 MiB) when every Python call is a C call: the hook
    # refuses the frame that would overflow it with RecursionError instead of letting the process die.
    proc = run(str(HERE / "depth_program.py"), mode, str(depth), "1000000", timeout=300)
    assert proc.returncode == 0, f"rc={proc.returncode}\n{proc.stdout}\n{proc.stderr}"
    outcome, state = proc.stdout.split()
    assert state == "consistent"
    if mode == "skip_recursive":
        assert outcome == "ok", "a SKIP_RECURSIVE frame runs its callees with no hook: as deep as without it"
    else:
        assert outcome in ("ok", "RecursionError"), proc.stdout


def test_plain_python_reaches_the_depths_tested_here():
    # The reference for the test above: without the hook the same program completes.
    proc = run(str(HERE / "depth_program.py"), "off", "200000", "1000000", timeout=300)
    assert proc.returncode == 0 and proc.stdout.split() == ["ok", "consistent"], proc.stdout + proc.stderr
