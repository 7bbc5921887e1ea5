"""``tools/pytest_plugins/loom_watchdog.py``: a hung test fails with its stack printed; others are untouched."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import time
from pathlib import Path

PLUGINS = Path(__file__).resolve().parents[1] / "tools" / "pytest_plugins"


def _pytest(tmp_path: Path, body: str, limit: str) -> tuple[subprocess.CompletedProcess, float]:
    (tmp_path / "test_subject.py").write_text(textwrap.dedent(body))
    env = {**os.environ, "LOOM_TEST_TIMEOUT": limit,
           "PYTHONPATH": os.pathsep.join([str(PLUGINS), os.environ.get("PYTHONPATH", "")])}
    started = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "loom_watchdog",
                           str(tmp_path / "test_subject.py")], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=240)  # fmt: skip
    return proc, time.monotonic() - started


def test_a_hung_test_ends_its_process_with_every_stack_printed(tmp_path):
    proc, seconds = _pytest(tmp_path, """
        import time

        def test_sleeps_past_the_limit():
            time.sleep(120)
    """, limit="2")
    assert proc.returncode == 1, proc.stdout + proc.stderr
    assert seconds < 60
    assert "Timeout (0:00:02)!" in proc.stderr
    assert "test_sleeps_past_the_limit" in proc.stderr  # the hung frame, by name


def test_the_limit_is_per_test_and_a_test_within_it_passes(tmp_path):
    # Three tests of 1 s each under a 2 s limit: the watchdog is re-armed for each one.
    proc, _ = _pytest(tmp_path, """
        import time
        import pytest

        @pytest.mark.parametrize("n", range(3))
        def test_takes_a_second(n):
            time.sleep(1)
    """, limit="2")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "3 passed" in proc.stdout
    assert "Timeout" not in proc.stderr


def test_a_limit_that_is_not_a_number_is_a_usage_error(tmp_path):
    proc, _ = _pytest(tmp_path, "def test_nothing():\n    pass\n", limit="ten minutes")
    assert proc.returncode == 4  # pytest's usage-error status
    assert "LOOM_TEST_TIMEOUT must be a number of seconds, got 'ten minutes'" in proc.stderr
