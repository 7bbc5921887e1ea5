"""The runtime around the kernels: the on-disk cache, output_code logging, the interpreter switch,
extern fallbacks (by table, by missing rule, by a rule declining or failing) and whole-graph fallback."""

from __future__ import annotations

import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import torch

import loom_backends
from loom_backends.kernels.fallbacks import FALLBACKS
from loom_backends.kernels.lowering import LOWERINGS
from loom_backends.triton import compile_graph, config

aten = torch.ops.aten


def _graph():
    return torch.fx.symbolic_trace(lambda x: aten.mul.Tensor(aten.cos.default(x), 3.0))


def test_generated_modules_are_cached_on_disk_by_hash():
    x = torch.randn(5)
    first = compile_graph(_graph(), [x])
    second = compile_graph(_graph(), [x])
    path = Path(first.path)
    assert path.exists() and path.read_text() == first.source
    assert path.is_relative_to(Path(os.environ["LOOM_CACHE_DIR"]))
    assert second.path == first.path  # same source, same file
    torch.testing.assert_close(second(x), x.cos() * 3)


def test_output_code_is_logged(caplog):
    with caplog.at_level(logging.DEBUG, logger="loom.output_code"):
        compile_graph(_graph(), [torch.randn(3)])
    text = "\n".join(r.getMessage() for r in caplog.records if r.name == "loom.output_code")
    assert "@triton.jit" in text and "def loom_poi_cos_mul_0(" in text and "def call(" in text


def _run(code: str, **env: str) -> subprocess.CompletedProcess:
    full_env = {**os.environ, **env}
    full_env.pop("TRITON_INTERPRET", None)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True, env=full_env, timeout=300)


def test_loom_logs_env_prints_output_code_and_interpreter_is_switched_on_after_triton_import():
    # triton (and its @jit standard library) imported before loom decides to interpret
    code = """
        import triton, triton.language as tl
        import torch, loom_backends
        gm = torch.fx.symbolic_trace(lambda x: (torch.sigmoid(x).sum(dim=1),))
        x = torch.randn(3, 4, requires_grad=False)
        out = loom_backends.get("triton")(gm, [x])(x)
        torch.testing.assert_close(out[0], torch.sigmoid(x).sum(dim=1))
        import os; print("interpret", os.environ.get("TRITON_INTERPRET"))
    """
    result = _run(code, LOOM_LOGS="output_code")
    assert result.returncode == 0, result.stderr[-3000:]
    if not torch.cuda.is_available():
        assert "interpret 1" in result.stdout
    assert "[loom.output_code]" in result.stderr and "@triton.jit" in result.stderr


def test_fallback_table_ops_are_extern_calls_with_their_reason(check):
    assert "aten.mm" in FALLBACKS and "aten.convolution" in FALLBACKS
    compiled = check.aten(lambda x: aten.cumsum.default(aten.exp.default(x), 1), torch.randn(3, 4), externs=1)
    (extern,) = compiled.externs
    assert extern.op == "aten.cumsum.default" and extern.reason == FALLBACKS["aten.cumsum"]
    assert len(compiled.kernels) == 1  # the exp feeding it is still a kernel


def test_op_without_a_rule_runs_through_aten(check):
    assert aten.bucketize.Tensor not in LOWERINGS
    boundaries = torch.tensor([-1.0, 0.0, 1.0])
    compiled = check.aten(lambda x, b: aten.add.Tensor(aten.bucketize.Tensor(x, b), 1), torch.randn(10), boundaries, externs=1)
    assert compiled.externs[0].reason == "no lowering rule"


def test_a_rule_declining_its_arguments_falls_back(check):
    compiled = check.aten(lambda x: aten.pow.Tensor_Tensor(x, x), torch.arange(1, 6), externs=None)
    assert compiled.externs and compiled.externs[0].reason.startswith("unsupported here")


def test_a_failing_rule_falls_back_unless_strict(monkeypatch, caplog):
    def broken(x):
        raise ValueError("boom")

    monkeypatch.setitem(LOWERINGS, aten.cos.default, broken)
    x = torch.randn(4)
    with pytest.raises(ValueError, match="boom"):
        compile_graph(_graph(), [x])
    config.strict = False
    with caplog.at_level(logging.WARNING, logger="loom.triton"):
        compiled = compile_graph(_graph(), [x])
    torch.testing.assert_close(compiled(x), x.cos() * 3)
    assert [e.op for e in compiled.externs] == ["aten.cos.default"]
    assert "lowering aten.cos.default failed" in caplog.text


def test_runtime_scalar_inputs_reach_extern_calls(check):
    gm = torch.fx.symbolic_trace(lambda x, n: aten.mul.Tensor(aten.exp.default(x), n))
    compiled = compile_graph(gm, [torch.randn(3), 2])
    x = torch.randn(3)
    torch.testing.assert_close(compiled(x, 5), x.exp() * 5)


def test_input_with_other_strides_than_compiled_for_is_restrided():
    compiled = compile_graph(_graph(), [torch.randn(4, 6)])
    x = torch.randn(6, 4).t()  # same shape, transposed strides
    torch.testing.assert_close(compiled(x), x.cos() * 3)


def test_compiled_function_lists_kernels_and_externs(models):
    gm = torch.fx.symbolic_trace(models.MLP())
    compiled = loom_backends.get("triton")(gm, [torch.randn(3, 12)])
    assert compiled.backend == "triton"
    kernel = compiled.kernels[0]
    assert kernel.name.startswith("loom_") and "@triton.jit" in kernel.source
    assert kernel.bytes_read > 0 and kernel.bytes_written > 0 and kernel.ops
    assert all(e.op == "aten.mm.default" for e in compiled.externs)
    assert "kernels" in repr(compiled.graphs[0].compiled)
