"""``tools/gpu_check.py``: its dry run passes on the CPU, and its verdicts can fail."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

ROOT = Path(__file__).resolve().parents[1]
SCRIPT = ROOT / "tools" / "gpu_check.py"
sys.path.insert(0, str(ROOT / "tools"))

import gpu_check  # noqa: E402


@pytest.mark.skipif(sys.version_info[:2] != (3, 12), reason="about a minute of CPU: run once per CI, on the "
                    "Python of the lent GPU machine (3.12)")  # fmt: skip
def test_dry_run_checks_every_step_on_the_cpu(tmp_path):
    proc = subprocess.run([sys.executable, str(SCRIPT), "--dry-run", str(tmp_path)], capture_output=True, text=True,
                          timeout=300)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-3000:] + proc.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text())
    steps = results["steps"]
    assert set(steps) == {"bandwidth", "ops", "models", "kernels", "steps"}
    assert all("result" in s for s in steps.values()), {k: s.get("error") for k, s in steps.items()}
    assert steps["ops"]["result"]["passed"] > 0 and steps["ops"]["result"]["failed"] == 0
    assert {r["model"] for r in steps["models"]["result"]} == {"mlp", "block", "convnet", "gpt2"}
    assert all(r["kernels"] > 0 and r["ok"] for r in steps["models"]["result"])
    assert all(r["loom_kernels"] == 1 and r["bytes"] > 0 for r in steps["kernels"]["result"])
    assert results["summary"]["mismatches"] == 0
    assert "## Fused regions against inductor" in (tmp_path / "results.md").read_text()


def test_without_a_gpu_the_script_asks_for_the_dry_run(tmp_path):
    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    proc = subprocess.run([sys.executable, str(SCRIPT), str(tmp_path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--dry-run" in proc.stderr


def _run_with(tmp_path, steps):
    run = gpu_check.Run(tmp_path, dry_run=True, budget_s=1)
    run.results["steps"] = steps
    return gpu_check.summarize(run)


def test_summary_counts_every_kind_of_mismatch_and_failed_step(tmp_path):
    steps = {
        "ops": {"result": {"failed": 2}},
        "models": {"result": [{"model": "mlp", "ok": False}, {"model": "block", "ok": True}]},
        "kernels": {"result": [{"region": "softmax", "ok": False, "loom_vs_inductor": 2.0, "fraction_of_4.8TB/s": 0.5},
                               {"region": "sum", "ok": True, "loom_vs_inductor": 0.5, "fraction_of_4.8TB/s": 0.9}]},
        "steps": {"error": "RuntimeError: boom"},
    }  # fmt: skip
    summary = _run_with(tmp_path, steps)
    assert summary["mismatches"] == 4 and summary["failed_steps"] == ["steps"] and not summary["ok"]
    assert summary["kernel_geomean_vs_inductor"] == pytest.approx(1.0)
    assert summary["kernel_max_vs_inductor"] == 2.0
    assert summary["kernels_below_bandwidth_goal"] == ["softmax"]


def test_pytest_report_failures_are_counted(tmp_path):
    report = tmp_path / "junit.xml"
    report.write_text(
        '<testsuites><testsuite><testcase classname="a" name="ok"/>'
        '<testcase classname="a" name="bad"><failure message="x"/></testcase>'
        '<testcase classname="a" name="skip"><skipped/></testcase></testsuite></testsuites>'
    )
    counts, failures = gpu_check._junit_counts(report)
    assert counts == {"passed": 1, "failed": 1, "skipped": 1} and failures == ["a::bad"]


def test_errors_between_pairs_use_the_largest_value_as_a_floor():
    big, tiny = torch.full((3,), 2.0), torch.full((3,), 1e-8)
    errors = gpu_check._relative_errors({"weight": (big + 2e-3, big), "bias": (tiny * 3, tiny)})
    assert errors["weight"] == pytest.approx(1e-3 / (1 + 0.01), rel=1e-3)
    assert errors["bias"] < 1e-6  # noise on a zero-in-exact-arithmetic gradient is not an error
