"""The AOTAutograd cache (``loom_backends.aot_cache``): a training graph compiled again — in this process
or another — runs without AOTAutograd tracing or partitioning, with eager's values and gradients; what
it cannot replay exactly bypasses it; a damaged entry is ignored."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch
import torch.nn.functional as F

import loom_backends
from loom_backends import aot_cache


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOOM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LOOM_GRAPH_CACHE", raising=False)
    monkeypatch.delenv("LOOM_AOT_CACHE", raising=False)
    return tmp_path / "aot"


@pytest.fixture
def traces(monkeypatch):
    """How many times AOTAutograd was asked to trace a graph."""
    import torch._functorch.aot_autograd as aot_autograd

    calls = []
    original = aot_autograd.aot_module_simplified

    def counting(*args, **kwargs):
        calls.append(1)
        return original(*args, **kwargs)

    monkeypatch.setattr(aot_autograd, "aot_module_simplified", counting)
    return calls


def block(x, w1, b1, w2, g):
    h = F.gelu(F.linear(x, w1, b1))
    h = F.layer_norm(h, (h.shape[-1],), g)
    return (F.linear(h, w2) + x).tanh()


def block_inputs():
    torch.manual_seed(0)
    shapes = [(4, 8), (16, 8), (16,), (8, 16), (16,)]
    return [torch.randn(s, requires_grad=i > 0) for i, s in enumerate(shapes)]


def compile_and_step(fn, inputs, grad=None):
    """Compile ``fn`` with the c backend, run a training step; its outputs, gradients and counts moved."""
    before = aot_cache.stats()
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(fn), inputs)
    outs = compiled(*inputs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    torch.autograd.backward(outs[0], grad if grad is not None else torch.ones_like(outs[0]))
    grads = [x.grad for x in inputs]
    for x in inputs:
        x.grad = None
    after = aot_cache.stats()
    return [o.detach() for o in outs], grads, {k: after[k] - before[k] for k in after}


def eager_step(fn, inputs, grad=None):
    outs = fn(*inputs)
    outs = outs if isinstance(outs, (tuple, list)) else (outs,)
    torch.autograd.backward(outs[0], grad if grad is not None else torch.ones_like(outs[0]))
    grads = [x.grad for x in inputs]
    for x in inputs:
        x.grad = None
    return [o.detach() for o in outs], grads


def assert_same(got, want):
    for g, w in zip(got, want):
        if w is None:
            assert g is None
        else:
            torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-4)


def test_a_second_compile_replays_without_tracing_and_trains_as_eager(cache, traces):
    inputs = block_inputs()
    want = eager_step(block, inputs)
    outs, grads, counts = compile_and_step(block, inputs)
    assert (counts["misses"], counts["stored"], len(traces)) == (1, 1, 1)
    outs, grads, counts = compile_and_step(block, inputs)
    assert (counts["hits"], len(traces)) == (1, 1)  # no second trace
    assert_same(outs, want[0])
    assert_same(grads, want[1])
    assert grads[0] is None  # the input that needs no gradient gets none
    replayed = loom_backends.get("c")(torch.fx.symbolic_trace(block), inputs)
    assert [g.kind for g in replayed.graphs] == ["forward", "backward"]


def sine_pair(x, w):
    return (x * w).sin(), (x - w).cos()


def test_a_replayed_graph_returns_what_aot_autograd_returns(cache):
    inputs = [torch.randn(3, 4, requires_grad=True), torch.randn(4, requires_grad=True)]
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(sine_pair), inputs)
    first = compiled(*inputs)
    (first[0].sum() + first[1].sum()).backward()
    hits = aot_cache.stats()["hits"]
    replayed = loom_backends.get("c")(torch.fx.symbolic_trace(sine_pair), inputs)
    again = replayed(*inputs)
    assert aot_cache.stats()["hits"] == hits + 1 and type(again) is type(first) is list


def test_an_incoming_gradient_with_other_strides_is_given_the_traced_ones(cache):
    inputs = block_inputs()
    grad = torch.randn(8, 4).t()  # not contiguous: the backward graph was traced with a contiguous one
    want = eager_step(block, inputs, grad)
    compile_and_step(block, inputs, grad)
    outs, grads, counts = compile_and_step(block, inputs, grad)
    assert counts["hits"] == 1
    assert_same(outs, want[0])
    assert_same(grads, want[1])


def _first(outs):
    return outs[0] if isinstance(outs, (list, tuple)) else outs


def sine_sum(x):
    return x.sin().sum()


@pytest.mark.parametrize("replayed", [False, True], ids=["traced", "replayed"])
def test_gradients_taken_with_create_graph_carry_a_graph_and_refuse_a_second_backward(cache, replayed):
    x = torch.ones(3, requires_grad=True)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(sine_sum), [x])
    if replayed:  # a first step stores the graphs: the second compile is served by the cache
        _first(compiled(x)).backward()
        hits = aot_cache.stats()["hits"]
        compiled = loom_backends.get("c")(torch.fx.symbolic_trace(sine_sum), [x])
        assert aot_cache.stats()["hits"] == hits + 1
    (grad,) = torch.autograd.grad(_first(compiled(x)), x, create_graph=True)
    torch.testing.assert_close(grad.detach(), x.detach().cos())
    assert grad.requires_grad  # as eager's and AOTAutograd's: it was silently cut from the graph
    with pytest.raises(RuntimeError, match="double backward"):
        grad.sum().backward()


def dropout_block(x, w):
    return F.dropout(F.linear(x, w), p=0.5, training=True).sin()


def test_random_ops_draw_as_the_graph_aot_autograd_builds(cache):
    inputs = [torch.randn(6, 8, requires_grad=True), torch.randn(5, 8, requires_grad=True)]
    torch.manual_seed(1)
    first = compile_and_step(dropout_block, inputs)
    torch.manual_seed(1)
    second = compile_and_step(dropout_block, inputs)
    assert (first[2]["stored"], second[2]["hits"]) == (1, 1)
    assert_same(second[0], first[0])
    assert_same(second[1], first[1])


@pytest.mark.parametrize("how", ["truncated", "an edited graph", "its compiled graph gone"])
def test_a_damaged_entry_is_ignored_and_aot_autograd_runs_again(cache, traces, how):
    inputs = block_inputs()
    want = eager_step(block, inputs)
    compile_and_step(block, inputs)
    (entry,) = cache.glob("*.json")
    if how == "truncated":
        entry.write_text(entry.read_text()[:80])
    elif how == "an edited graph":
        data = json.loads(entry.read_text())
        data["forward"]["graph"][-1]["target"] = "op:aten::no_such_op.default"
        data["forward"]["graph"][-1]["op"] = "call_function"
        entry.write_text(json.dumps(data))
    else:
        forward_key = json.loads(entry.read_text())["forward"]["key"]
        (cache.parent / "graphs" / f"{forward_key}.json").unlink()
    outs, grads, counts = compile_and_step(block, inputs)
    assert (counts["ignored"], counts["hits"], counts["stored"], len(traces)) == (1, 0, 1, 2)
    assert_same(outs, want[0])
    assert_same(grads, want[1])
    outs, grads, counts = compile_and_step(block, inputs)  # stored again, whole
    assert (counts["hits"], len(traces)) == (1, 2)
    assert_same(grads, want[1])


def test_loom_aot_cache_0_turns_it_off(cache, monkeypatch, traces):
    monkeypatch.setenv("LOOM_AOT_CACHE", "0")
    inputs = block_inputs()
    for _ in range(2):
        _, _, counts = compile_and_step(block, inputs)
        assert not any(counts.values())
    assert len(traces) == 2 and not cache.exists()


_SECOND_PROCESS = textwrap.dedent("""
    import torch, torch.nn.functional as F, loom_backends
    import torch._functorch.aot_autograd as aot_autograd
    from loom_backends import aot_cache, c_toolchain

    traces = []
    original = aot_autograd.aot_module_simplified
    aot_autograd.aot_module_simplified = lambda *a, **k: traces.append(1) or original(*a, **k)

    def block(x, w1, b1, w2, g):
        h = F.gelu(F.linear(x, w1, b1))
        h = F.layer_norm(h, (h.shape[-1],), g)
        return (F.linear(h, w2) + x).tanh()

    torch.manual_seed(0)
    inputs = [torch.randn(s, requires_grad=True) for s in [(4, 8), (16, 8), (16,), (8, 16), (16,)]]
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(block), inputs)
    out = compiled(*inputs)
    out.sum().backward()
    grads = [x.grad.clone() for x in inputs]
    for x in inputs:
        x.grad = None
    want = block(*inputs)
    want.sum().backward()
    assert torch.allclose(out, want, atol=1e-5, rtol=1e-4)
    for got, ref in zip(grads, [x.grad for x in inputs]):
        assert torch.allclose(got, ref, atol=1e-5, rtol=1e-4)
    print("COUNTS", len(traces), aot_cache.stats()["hits"], c_toolchain.compiler_invocations())
""")


def test_a_second_process_compiles_a_training_step_without_tracing(tmp_path):
    runs = []
    for _ in range(2):
        env = {**os.environ, "LOOM_CACHE_DIR": str(tmp_path), "LOOM_GRAPH_CACHE": "1"}
        out = subprocess.run([sys.executable, "-c", _SECOND_PROCESS], env=env, capture_output=True, text=True,
                             timeout=300)  # fmt: skip
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(tuple(int(n) for n in out.stdout.split("COUNTS")[1].split()[:3]))
    assert runs[0][:2] == (1, 0)
    assert runs[1] == (0, 1, 0)  # no AOTAutograd trace, no compiler run


# --- the graphs' records (fx_serial) --------------------------------------------------------------------


def aten_graph(x):
    aten = torch.ops.aten
    var, mean = aten.var_mean.correction(x, [1], correction=0, keepdim=True)
    y = aten.mul.Tensor(aten.sub.Tensor(x, mean), -0.0)
    z = aten.clamp.default(var, None, float("inf"))
    return (
        aten.add.Tensor(y, z),
        aten.full.default([2], 1.5, dtype=torch.float64, device=torch.device("cpu")),
    )


def test_an_aten_graph_is_rebuilt_node_for_node_from_its_records():
    from loom_backends import fx_serial, graph_cache

    gm = torch.fx.symbolic_trace(aten_graph)
    records, tensors = fx_serial.to_records(gm)
    rebuilt = fx_serial.from_records(json.loads(json.dumps(records)), tensors)
    assert graph_cache.graph_lines(rebuilt) == graph_cache.graph_lines(gm)  # -0.0 and inf kept exactly
    x = torch.randn(3, 4)
    for got, want in zip(rebuilt(x), gm(x)):
        torch.testing.assert_close(got, want)
    getitem = next(r for r in records if r["target"] == "fn:_operator:getitem")
    getitem["target"] = "fn:os:system"  # a record naming anything else is refused, nothing imported
    with pytest.raises(ValueError):
        fx_serial.from_records(records, tensors)
