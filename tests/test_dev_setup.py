"""tools/dev.py's set-up tries a failed third-party install once more, after emptying pip's cache."""

from __future__ import annotations

import importlib.util
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture
def dev():
    spec = importlib.util.spec_from_file_location("loom_dev_driver", ROOT / "tools" / "dev.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def record_commands(monkeypatch, dev, failures: int) -> list[list[str]]:
    """Make dev's commands record themselves; the first ``failures`` pip installs fail."""
    commands: list[list[str]] = []
    left = [failures]

    def fake_run(cmd, check=False, **kwargs):
        commands.append(list(cmd))
        if "install" in cmd and left[0] > 0:
            left[0] -= 1
            raise subprocess.CalledProcessError(1, cmd)
        return subprocess.CompletedProcess(cmd, 0)

    monkeypatch.setattr(dev.subprocess, "run", fake_run)
    return commands


def test_a_failed_install_is_tried_again_without_pips_cache(monkeypatch, dev, tmp_path):
    commands = record_commands(monkeypatch, dev, failures=1)
    dev.install_third_party(tmp_path, "3.13")
    installs = [c for c in commands if "install" in c]
    assert len(installs) == 2
    assert "--no-cache-dir" not in installs[0] and "--no-cache-dir" in installs[1]
    assert any(c[-2:] == ["cache", "purge"] for c in commands)
    # The retry installs the same set.
    assert installs[1][-len(dev.third_party("3.13")):] == dev.third_party("3.13")


def test_an_install_that_works_is_run_once(monkeypatch, dev, tmp_path):
    commands = record_commands(monkeypatch, dev, failures=0)
    dev.install_third_party(tmp_path, "3.12")
    assert [c for c in commands if "install" in c] and len(commands) == 1


def test_a_second_failure_is_the_set_ups(monkeypatch, dev, tmp_path):
    record_commands(monkeypatch, dev, failures=2)
    with pytest.raises(subprocess.CalledProcessError):
        dev.install_third_party(tmp_path, "3.13")
