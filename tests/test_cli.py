"""The loom command: `loom explain SCRIPT -- ARGS` (a real subprocess) and `loom demo` (in process)."""

import os
import subprocess
import sys
import textwrap

import pytest

from loom.cli import main

SCRIPT = '''
import sys
import torch
from helpers import double  # a module next to the script: compiled too

def step(x):
    y = double(x)
    if y.sum() > 0:  # a data-dependent branch: a graph break
        y = y + 1
    return y

def clean(x):
    return torch.cos(x) * 2

if __name__ == "__main__":
    print("args:", sys.argv[1:])
    for _ in range(3):
        step(torch.randn(4))
        clean(torch.randn(4))
    sys.exit(int(sys.argv[-1]))
'''


@pytest.fixture
def script(tmp_path):
    (tmp_path / "helpers.py").write_text("import torch\n\ndef double(x):\n    return torch.relu(x) * 2\n")
    path = tmp_path / "train.py"
    path.write_text(textwrap.dedent(SCRIPT))
    return path


def test_loom_explain_runs_the_script_and_prints_every_break(script):
    loom_cmd = os.path.join(os.path.dirname(sys.executable), "loom")
    env = {**os.environ, "LOOM_LOGS": "graph_breaks"}
    proc = subprocess.run([loom_cmd, "explain", str(script), "--", "--flag", "3"], capture_output=True,
                          text=True, env=env, timeout=300)
    out, err = proc.stdout, proc.stderr
    assert proc.returncode == 3, err  # the script's own exit status
    assert "args: ['--flag', '3']" in out
    report = out[out.index("=== loom explain"):]
    assert "graph break" in report
    line = SCRIPT.splitlines().index("    if y.sum() > 0:  # a data-dependent branch: a graph break")
    assert f"train.py:{line + 1} in step" in report and "if y.sum() > 0:" in report
    assert "in clean" in report and "relu" in report  # helpers.double was inlined into step's graph
    assert "[loom.graph_breaks] graph break in step" in err  # LOOM_LOGS works in a fresh process


def test_loom_explain_reports_a_missing_script(tmp_path, capsys):
    assert main(["explain", str(tmp_path / "nope.py")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_loom_explain_in_process_reports_a_failing_script(tmp_path, capsys):
    path = tmp_path / "fails.py"
    path.write_text("import torch\n\ndef f(x):\n    return torch.sin(x)\n\nf(torch.randn(2))\nraise SystemError('boom')\n")
    assert main(["explain", str(path)]) == 1
    captured = capsys.readouterr()
    assert "SystemError: boom" in captured.err
    assert "1 graph, 0 graph breaks" in captured.out


def test_loom_demo(capsys):
    assert main(["demo", "--quick"]) == 0
    captured = capsys.readouterr()
    out = captured.out
    for part in (
        "loom.explain(TinyGPT) - result matches eager: True",
        "Graphs (1,",
        "Guards:",
        "loom.explain(generate): graph breaks in a decoding loop",
        ".item()",
        "first call of TinyGPT",
        "torch.compile (eager)",
        "per call, thread CPU time",
        "loom's per-call overhead is",
        "C kernels generated for TinyGPT (backend='c')",
        "Triton kernels",
        "done",
    ):
        assert part in out, part
    assert "[loom demo]" in captured.err  # progress, one line per phase
