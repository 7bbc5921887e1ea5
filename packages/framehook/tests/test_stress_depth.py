"""A short randomized stress run under -X dev, and recursion at the default limit, in subprocesses."""

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
