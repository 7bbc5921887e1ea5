"""The ``c`` backend end to end: models forward and backward against eager, 1 and 2 threads, dynamic sizes,
what a compiled graph shows (kernels, source, log channel), and falling back to ATen when there is no
compiler or the generated C does not build. (Every lowered op and dtype runs through the C generator in
the conformance files: see ``conftest.GENERATORS``.)"""

from __future__ import annotations

import copy
import logging
import os
import re
import stat
import subprocess
import sys
import textwrap

import pytest
import torch

import loom_backends
from loom_backends.c import compile_graph

aten = torch.ops.aten


def train_step(module, inputs, *, backend="c", grad_input=True):
    reference = copy.deepcopy(module)
    gm = torch.fx.symbolic_trace(module)
    ours = [x.clone().requires_grad_(grad_input and x.is_floating_point()) for x in inputs]
    theirs = [x.clone().requires_grad_(grad_input and x.is_floating_point()) for x in inputs]
    compiled = loom_backends.get(backend)(gm, ours)
    out, want = compiled(*ours), reference(*theirs)
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-4)
    grad = torch.randn_like(want)
    out.backward(grad)
    want.backward(grad)
    for a, b in zip(ours, theirs):
        if a.requires_grad:
            torch.testing.assert_close(a.grad, b.grad, atol=1e-5, rtol=1e-4)
    for (name, p), q in zip(gm.named_parameters(), reference.parameters()):
        torch.testing.assert_close(p.grad, q.grad, atol=1e-5, rtol=1e-4, msg=name)
    for g in compiled.graphs:
        assert g.compiled.fallback_reason is None, g.compiled.fallback_reason
    return compiled



@pytest.mark.parametrize("name, shape", [("MLP", (2, 8, 12)), ("Block", (2, 5, 16))])
def test_models_train_through_c(name, shape, models, threads):
    torch.manual_seed(0)
    compiled = train_step(getattr(models, name)(), [torch.randn(*shape)])
    assert compiled.kernels and {e.op for e in compiled.externs} <= {"aten.mm.default", "aten.bmm.default"}
    assert "#pragma omp parallel num_threads(nthreads)" in compiled.kernels[0].source


class ConvNet(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.conv = torch.nn.Conv2d(3, 4, 3, padding=1)
        self.bn = torch.nn.BatchNorm2d(4)
        self.head = torch.nn.Linear(4, 5)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.head(torch.relu(self.bn(self.conv(x))).mean(dim=(2, 3)))


def test_conv_batchnorm_net_trains(threads):
    torch.manual_seed(1)
    compiled = train_step(ConvNet(), [torch.randn(2, 3, 6, 6)])
    assert not any("batch_norm" in e.op for e in compiled.externs)  # decomposed and fused


def test_a_training_step_with_an_optimizer_matches_eager(models):
    torch.manual_seed(2)
    model = models.MLP()
    reference = copy.deepcopy(model)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(model), [torch.randn(4, 12)])
    opt, ref_opt = (torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9) for m in (model, reference))
    for step in range(3):
        x = torch.randn(4, 12)
        for m, o, run in ((model, opt, compiled), (reference, ref_opt, reference)):
            o.zero_grad()
            run(x).square().mean().backward()
            o.step()
    for p, q in zip(model.parameters(), reference.parameters()):
        torch.testing.assert_close(p, q, atol=1e-5, rtol=1e-4)


def test_softmax_and_layer_norm_fuse_into_one_reduction_kernel_each():
    def f(x, w, b):
        y = torch.softmax(x, -1)
        return torch.nn.functional.layer_norm(y, (x.shape[-1],), w, b)

    x, w, b = torch.randn(6, 40), torch.randn(40), torch.randn(40)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x, w, b])
    torch.testing.assert_close(compiled(x, w, b), f(x, w, b), atol=1e-5, rtol=1e-5)
    (graph,) = [g.compiled for g in compiled.graphs]
    assert [k.kind for k in graph.kernels] == ["reduction"]  # softmax and layer norm: one kernel
    source = graph.kernels[0].source
    assert source.count("for (int64_t rindex") == 5 and "expf(" in source  # max, sum, mean, variance, out
    assert source.startswith("/* loom_red_") and "amax" in source.splitlines()[0]


def test_gpt2_from_transformers_trains_through_c(gpt2_training):
    artifacts = gpt2_training("c", n_layer=1, n_embd=16, vocab_size=37, n_positions=8, ids_shape=(2, 6))
    graphs = [g for a in artifacts for g in a.graphs]
    assert all(g.compiled.fallback_reason is None and g.compiled.kernels for g in graphs)


def test_dynamic_sizes_one_artifact_for_every_size(dynamic, threads):
    def f(x, y):
        return (torch.softmax(x * 2 + y, -1), (x - x.mean(0)).sum(1), x[:, :3].exp())

    gm, example = dynamic.graph(f, [torch.randn(4, 6), torch.randn(6)], {0: {0, 1}, 1: {0}})
    compiled = loom_backends.get("c")(gm, example)
    (graph,) = [g.compiled for g in compiled.graphs]
    assert graph.fallback_reason is None and graph.kernels
    assert "int64_t s0" in graph.c_source and "s0 = arg0.shape[0]" in graph.source
    for n, m in ((2, 6), (5, 9), (70, 33), (3, 700)):
        x = torch.randn(n, m)
        y = torch.randn(m)
        torch.testing.assert_close(compiled(x, y), f(x, y), atol=2e-5, rtol=2e-5, msg=f"{n}x{m}")


def test_kernels_and_extern_calls_run_in_order_from_one_entry_point_per_run():
    def f(a, b):
        h = aten.relu.default(aten.add.Tensor(a, 1.0))
        m = aten.mm.default(h, b)
        return (aten.mul.Tensor(aten.exp.default(m), 2.0), aten.sum.dim_IntList(m, [1]))

    a, b = torch.randn(5, 4), torch.randn(4, 3)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [a, b])
    assert len(compiled.kernels) >= 2 and len(compiled.externs) == 1
    assert compiled.host_source.count("loom_run_") == 2 * 2  # two runs: each a parameter and a call
    torch.testing.assert_close(compiled(a, b), f(a, b))


def test_no_multiplication_by_one_from_addmm_scaling():
    def f(x, w, b):
        return torch.nn.functional.gelu(torch.nn.functional.linear(x, w, b))

    x, w, b = torch.randn(4, 8), torch.randn(6, 8), torch.randn(6)
    for backend in ("c", "triton"):
        compiled = loom_backends.get(backend)(torch.fx.symbolic_trace(f), [x, w, b])
        torch.testing.assert_close(compiled(x, w, b), f(x, w, b), atol=1e-5, rtol=1e-5)
        for kernel in compiled.kernels:
            assert "* 1.0" not in kernel.source, kernel.source


def test_arange_writes_no_unit_step_or_zero_start():
    """``arange(n)`` is the index itself: no ``* 1`` or ``+ 0`` in either generator's kernels; other starts
    and steps, integral and float, keep eager's values."""
    def f(x):
        n = x.shape[-1]
        return (x + torch.arange(n), x * torch.arange(3, 3 + 2 * n, 2), x - torch.arange(0.5, n, 1.0))

    x = torch.randn(4, 8)
    for backend in ("c", "triton"):
        compiled = loom_backends.get(backend)(torch.fx.symbolic_trace(f), [x])
        for got, want in zip(compiled(x), f(x)):
            torch.testing.assert_close(got, want)
        for kernel in compiled.kernels:
            for dead in ("* 1L", "+ 0L", "* 1)", "+ 0)"):
                assert dead not in kernel.source, kernel.source


def test_output_code_log_prints_the_c_source(caplog):
    with caplog.at_level(logging.DEBUG, logger="loom.output_code"):
        compile_graph(torch.fx.symbolic_trace(lambda x: (aten.exp.default(x),)), [torch.randn(3)])
    assert any("static void loom_poi_exp_0" in r.getMessage() for r in caplog.records)


def _script(tmp_path, name, body):
    path = tmp_path / name
    path.write_text("#!/bin/sh\n" + body + "\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return path


@pytest.mark.parametrize("compiler", ["missing", "failing"])
def test_without_a_working_compiler_the_graph_runs_through_aten_with_a_warning(compiler, tmp_path):
    cc = tmp_path / "no-such-cc" if compiler == "missing" else _script(tmp_path, "bad-cc", "exit 3")
    code = textwrap.dedent("""
        import warnings, torch, loom_backends
        def f(x):
            return torch.relu(x) * 2
        x = torch.randn(5)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x])
            assert torch.equal(compiled(x), f(x))
        (graph,) = compiled.graphs
        assert graph.compiled.fallback_reason and graph.compiled.kernels == []
        print("WARNINGS", [str(w.message) for w in caught])
    """)
    env = {**os.environ, "CC": str(cc), "LOOM_CACHE_DIR": str(tmp_path / "cache")}
    result = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
    assert result.returncode == 0, result.stderr[-3000:]
    warnings_line = next(line for line in result.stdout.splitlines() if line.startswith("WARNINGS"))
    assert str(cc.name) in warnings_line or "compiler" in warnings_line, warnings_line


def test_generated_c_that_fails_to_compile_falls_back(monkeypatch):
    from loom_backends.c import config, wrapper

    monkeypatch.setattr(config, "strict", False)
    monkeypatch.setattr(wrapper, "PRELUDE", wrapper.PRELUDE + "\n#error loom test: this source does not build\n")
    x = torch.randn(6)
    with pytest.warns(Warning):
        compiled = compile_graph(torch.fx.symbolic_trace(lambda a: (aten.sin.default(a),)), [x])
    assert compiled.fallback_reason and "does not compile" in compiled.fallback_reason
    torch.testing.assert_close(compiled(x), (x.sin(),))


def test_a_second_process_compiles_nothing(tmp_path):
    code = textwrap.dedent("""
        import torch, loom_backends
        from loom_backends import c_toolchain
        x = torch.randn(3, 7)
        compiled = loom_backends.get("c")(torch.fx.symbolic_trace(lambda a: torch.tanh(a).sum(1)), [x])
        assert (compiled(x) - torch.tanh(x).sum(1)).abs().max() < 1e-5
        print("INVOCATIONS", c_toolchain.compiler_invocations())
    """)
    env = {**os.environ, "LOOM_CACHE_DIR": str(tmp_path / "cache")}
    counts = []
    for _ in range(2):
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=300)
        assert out.returncode == 0, out.stderr[-3000:]
        counts.append(int(out.stdout.split("INVOCATIONS")[1].split()[0]))
    assert counts[0] >= 1 and counts[1] == 0


def test_a_large_transposing_copy_is_left_to_aten_and_a_small_one_is_a_kernel():
    def f(a):
        return (aten.clone.default(aten.t.default(a), memory_format=torch.contiguous_format),)

    for shape, kernels in (((300, 260), 0), ((8, 6), 1)):
        x = torch.randn(*shape)
        compiled = compile_graph(torch.fx.symbolic_trace(f), [x])
        torch.testing.assert_close(compiled(x), f(x))
        assert compiled(x)[0].is_contiguous()
        assert len(compiled.kernels) == kernels
        assert [e.op for e in compiled.externs] == ([] if kernels else ["aten.copy_.default"])


def test_a_transposed_read_in_a_fused_kernel_walks_tiles():
    def f(a, b):
        return (aten.mul.Tensor(aten.add.Tensor(aten.t.default(a), 1.0), b),)

    for shape in ((48, 70), (33, 40)):  # rows and columns not multiples of the tile
        a, b = torch.randn(*shape), torch.randn(shape[1], 1)
        compiled = compile_graph(torch.fx.symbolic_trace(f), [a, b])
        torch.testing.assert_close(compiled(a, b), f(a, b))
        (kernel,) = compiled.kernels
        assert "for (int64_t xi0 = 0;" in kernel.source


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
def test_softmax_reads_its_exponentials_back_from_a_scratch_row(dtype, threads):
    def f(x):
        return (torch.softmax(x, -1), torch.sigmoid(x).sum(-1))

    x = torch.randn(70, 256).to(dtype)
    x[3, 5], x[4, 7], x[5] = float("nan"), float("inf"), float("-inf")
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x])
    for got, want in zip(compiled(x), f(x)):
        torch.testing.assert_close(got, want, equal_nan=True)
    source = "\n".join(k.source for g in compiled.graphs for k in g.compiled.kernels)
    assert source.count("expf(") == 2  # softmax's exp once (sum, then read back), sigmoid's once
    assert "[256] __attribute__((aligned(64)));" in source and "[rindex] = " in source


def test_a_row_too_long_for_a_scratch_row_recomputes_its_exponentials():
    def f(x):
        return (torch.softmax(x, -1),)

    x = torch.randn(2, 20000)  # 80 KB of float: over SCRATCH_BYTES
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x])
    torch.testing.assert_close(compiled(x)[0], f(x)[0])
    ((kernel,),) = [g.compiled.kernels for g in compiled.graphs]
    assert not re.search(r"\brow\d+\[", kernel.source)  # no scratch row
    assert kernel.source.count("expf(") == 3  # the sum's loop (its 64 lanes, its tail) and the outputs' loop


def test_a_reduction_row_reading_a_per_channel_value_loops_over_channels(threads):
    def f(x, w):
        y = x * w[None, :, None]  # the weight's index is rindex // 24 in a row of 5 * 24
        return (y.sum((1, 2)), y.amax((1, 2)), torch.group_norm(y, 5))

    x, w = torch.randn(6, 5, 24), torch.randn(5)
    x[2, 1, 3] = float("nan")
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x, w])
    for got, want in zip(compiled(x, w), f(x, w)):
        torch.testing.assert_close(got, want, equal_nan=True)
    source = "\n".join(k.source for g in compiled.graphs for k in g.compiled.kernels)
    assert "for (int64_t ro = 0; ro < rnumel / 24; ro++)" in source and "rindex / 24" not in source


def test_a_per_channel_value_of_a_split_row_is_indexed_by_the_row_not_divided_per_element(threads):
    # eval-mode batch norm + ReLU over NCHW: the channel is (xindex // (H*W)) % C; split into rows of H*W it
    # must be `xo % C`, not `((xi + 64*xo) / 64) % C` (an int64 division per element of the vector loop)
    def f(x, mean, var, w, b):
        return torch.relu(torch.nn.functional.batch_norm(x, mean, var, w, b, False, 0.1, 1e-5))

    x, var = torch.randn(3, 6, 8, 8), torch.rand(6) + 0.5
    mean, w, b = torch.randn(6), torch.randn(6), torch.randn(6)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [x, mean, var, w, b])
    torch.testing.assert_close(compiled(x, mean, var, w, b), f(x, mean, var, w, b))
    source = "\n".join(k.source for g in compiled.graphs for k in g.compiled.kernels)
    assert "int64_t x1 = xo % 6;" in source and "/ 64) %" not in source


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8, torch.int64], ids=str)
def test_an_integer_division_by_zero_raises_as_in_eager(dtype, threads):
    ops = [aten.floor_divide.default, aten.remainder.Tensor, aten.fmod.Tensor]

    def f(a, b):
        return tuple(aten.add.Tensor(op(a, b), 1) for op in ops) + (aten.div.Tensor_mode(a, b, rounding_mode="trunc"),)

    a, b = torch.tensor([5, 7, 9, 100], dtype=dtype), torch.tensor([2, 0, 3, 7], dtype=dtype)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [a, b])
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        f(a, b)
    with pytest.raises(RuntimeError, match="ZeroDivisionError"):
        compiled(a, b)
    b[1] = 1  # the flag is reset by each call
    for got, want in zip(compiled(a, b), f(a, b)):
        torch.testing.assert_close(got, want)
    assert "raise_run_status(status)" in compiled.host_source and "return loom_zero_division;" in compiled.c_source


def _embedding(weight, rows):
    return aten.add.Tensor(aten.embedding.default(weight, rows), 1)


def _index_select(weight, rows):
    return aten.mul.Tensor(aten.index_select.default(weight, 0, rows), 2)


def _gather(weight, rows):
    return aten.gather.default(weight, 1, aten.unsqueeze.default(rows, 1))


def _advanced_index(weight, rows):
    return aten.index.Tensor(weight, [rows])


@pytest.mark.parametrize("fn", [_embedding, _index_select, _gather, _advanced_index], ids=lambda f: f.__name__[1:])
def test_an_index_out_of_range_raises_as_in_eager_and_reads_nothing_outside_the_tensor(fn, threads):
    weight = torch.arange(12.0).reshape(4, 3)
    compiled = compile_graph(torch.fx.symbolic_trace(fn), [weight, torch.tensor([0, 1, 2])])
    assert "return loom_index_out_of_bounds << 1;" in compiled.c_source
    torch.testing.assert_close(compiled(weight, torch.tensor([2, 0, 1])), fn(weight, torch.tensor([2, 0, 1])))
    error = RuntimeError if fn is _gather else IndexError  # eager's
    for rows in (torch.tensor([1, 4, 0]), torch.tensor([1, 2, 1 << 40])):  # past the end: eager raises
        with pytest.raises(error):
            fn(weight, rows)
        with pytest.raises(error, match="out of"):
            compiled(weight, rows)
    negative = torch.tensor([0, -1, 1])  # advanced indexing counts from the end; the others raise
    if fn is _advanced_index:
        torch.testing.assert_close(compiled(weight, negative), fn(weight, negative))
    else:
        with pytest.raises(error):
            fn(weight, negative)
        with pytest.raises(error, match="out of"):
            compiled(weight, negative)
    torch.testing.assert_close(compiled(weight, torch.tensor([1, 1, 2])), fn(weight, torch.tensor([1, 1, 2])))


@pytest.mark.parametrize("position", [0, 1, 777, 4095])
def test_one_index_out_of_range_among_thousands_is_found_by_the_vector_loops(position, threads):
    weight = torch.randn(300, 256)
    rows = torch.randint(0, 300, (4096,))
    compiled = compile_graph(torch.fx.symbolic_trace(_embedding), [weight, rows])
    torch.testing.assert_close(compiled(weight, rows), _embedding(weight, rows))
    rows[position] = 300
    with pytest.raises(IndexError, match="out of range"):
        compiled(weight, rows)
    rows[position] = -1
    with pytest.raises(IndexError, match="out of range"):
        compiled(weight, rows)


class _SlicedConv(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = torch.nn.Parameter(torch.randn(8, 16, 3, 3))
        self.bias = torch.nn.Parameter(torch.randn(8))

    def forward(self, x):
        # a kernel writes x * 2 contiguously; eager's is channels-last, as x is, and so is its convolution
        return torch.conv2d(x * 2, self.weight, self.bias, padding=1)[:, :4]


def test_a_view_of_an_extern_output_reads_the_layout_it_was_computed_for():
    # the convolution of the contiguous buffer came out contiguous while the view was computed for
    # eager's channels-last output: the channel slice read the wrong elements (diffusers' AutoencoderKL)
    torch.manual_seed(0)
    module = _SlicedConv().requires_grad_(False)
    x = torch.randn(2, 16, 8, 8).to(memory_format=torch.channels_last)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(module), [x])
    torch.testing.assert_close(compiled(x), module(x), atol=1e-4, rtol=1e-4)


@pytest.mark.parametrize("write", [
    lambda a, b: aten.set_.source_Tensor(a, b),
    lambda a, b: aten.copy_.default(a, b),
], ids=["set_", "copy_"])
def test_a_lazy_read_of_an_input_is_stored_before_a_later_op_writes_that_input(write):
    # `a + 0` and `a * 2` are lazy values computed where they are used (the outputs), after the write to `a`
    def f(a, b):
        before, doubled = aten.add.Tensor(a, 0), aten.mul.Tensor(a, 2)
        write(a, b)
        return before, doubled, aten.add.Tensor(a, 1)

    a, b = torch.arange(4.0), torch.full((4,), 10.0)
    compiled = compile_graph(torch.fx.symbolic_trace(f), [a.clone(), b])
    for expected, got in zip(f(a.clone(), b), compiled(a.clone(), b)):
        torch.testing.assert_close(got, expected)
