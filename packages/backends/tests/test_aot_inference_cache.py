"""Inference entries of the AOTAutograd cache (``loom_backends.aot_inference_cache``): a graph that needs no
autograd, compiled again — in this process or another — is taken from the cache before the one trace
(no fakes, no ``make_fx``); an inference entry never serves a graph that needs a training graph, nor the
reverse; a damaged entry is ignored and the graph traced again."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

import loom_backends
from loom_backends import aot, aot_cache

from . import test_aot_cache as base

cache = base.cache  # the cache's fixture: a fresh cache directory, both caches on


def pointwise(x, w, m):
    return ((x * w).sin() + 1.0, (x - w).relu().sum(0), x @ m)  # the product: an ATen call


def inputs(requires_grad=False):
    torch.manual_seed(0)
    return [torch.randn(5, 8), torch.randn(8, requires_grad=requires_grad),
            torch.randn(8, 3, requires_grad=requires_grad)]  # fmt: skip


def compile_counting(fn, args):
    """``fn`` compiled with ``c``, and how each AOTAutograd cache count changed."""
    before = aot_cache.stats()
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(fn), args)
    after = aot_cache.stats()
    return compiled, {k: after[k] - before[k] for k in after}


def assert_same(got, want):
    for g, w in zip(got, want):
        torch.testing.assert_close(g, w, atol=1e-5, rtol=1e-4)


def refuse_one_trace(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("the one trace ran")

    monkeypatch.setattr(aot, "trace_inference", refuse)


def test_a_second_compile_takes_the_cache_before_the_one_trace(cache, monkeypatch):
    args = inputs()
    first, counts = compile_counting(pointwise, args)
    assert (counts["misses"], counts["stored"]) == (1, 1) and first.cache_key
    refuse_one_trace(monkeypatch)
    second, counts = compile_counting(pointwise, args)
    assert counts["hits"] == 1 and second.cache_key == first.cache_key
    assert [g.kind for g in second.graphs] == ["inference"]
    assert [k.name for k in second.kernels] == [k.name for k in first.kernels] and second.kernels
    assert_same(second(*args), pointwise(*args))
    args[0].requires_grad_()
    assert not any(t.requires_grad for t in second(*args))  # grad mode off inside, as the one trace's


def test_an_inference_entry_does_not_serve_a_graph_that_needs_training(cache):
    inference, _ = compile_counting(pointwise, inputs())
    args = inputs(requires_grad=True)
    training, counts = compile_counting(pointwise, args)
    assert counts["hits"] == 0 and training.cache_key not in (None, inference.cache_key)
    outs = training(*args)
    assert outs[0].requires_grad
    (outs[0].sum() + outs[1].sum() + outs[2].sum()).backward()
    assert [g.kind for g in training.graphs] == ["forward", "backward"]
    assert args[1].grad is not None


def test_a_training_entry_does_not_serve_a_graph_that_needs_no_training(cache):
    args = inputs(requires_grad=True)
    training, _ = compile_counting(pointwise, args)
    outs = training(*args)
    (outs[0].sum() + outs[1].sum() + outs[2].sum()).backward()
    with torch.no_grad():
        inference, counts = compile_counting(pointwise, args)
        assert [g.kind for g in inference.graphs] == ["inference"]
        assert not any(t.requires_grad for t in inference(*args))
    assert (counts["hits"], counts["stored"]) == (0, 1)
    assert inference.cache_key not in (None, training.cache_key)
    # grad mode is in the key: the same inputs with grad mode on need the training graph again
    again, counts = compile_counting(pointwise, args)
    assert counts["hits"] == 1 and again.cache_key == training.cache_key


@pytest.mark.parametrize("how", ["truncated", "an edited graph", "its compiled graph gone"])
def test_a_damaged_entry_is_ignored_and_the_graph_traced_again(cache, how):
    args = inputs()
    first, _ = compile_counting(pointwise, args)
    entry = cache / f"{first.cache_key}.json"
    data = json.loads(entry.read_text())
    if how == "truncated":
        entry.write_text(entry.read_text()[:90])
    elif how == "an edited graph":
        data["inference"]["graph"][-2]["target"] = "fn:os:system"
        entry.write_text(json.dumps(data))
    else:
        (cache.parent / "graphs" / f"{data['inference']['key']}.json").unlink()
    second, counts = compile_counting(pointwise, args)
    assert (counts["ignored"], counts["hits"], counts["stored"]) == (1, 0, 1)
    assert second.cache_key == first.cache_key
    assert_same(second(*args), pointwise(*args))
    _, counts = compile_counting(pointwise, args)  # stored again, whole
    assert counts["hits"] == 1


def test_an_inference_graph_not_in_the_graph_cache_is_not_stored(cache, monkeypatch):
    from loom_backends.c import compile as c_compile

    monkeypatch.setattr(c_compile, "_keep_entry", lambda keep, compiled, wrapper: None)  # nothing to store
    compiled, counts = compile_counting(pointwise, inputs())
    assert compiled.cache_key is None
    assert (counts["stored"], counts["bypassed"]) == (0, 1) and not list(cache.glob("*.json"))


_SECOND_PROCESS = textwrap.dedent("""
    import sys, torch, loom_backends
    import torch.fx.experimental.proxy_tensor as proxy_tensor
    from loom_backends import aot_cache, c_toolchain

    def refuse(*args, **kwargs):
        raise AssertionError("make_fx ran")

    if sys.argv[1] == "warm":
        proxy_tensor.make_fx = refuse

    def pointwise(x, w, m):
        return ((x * w).sin() + 1.0, (x - w).relu().sum(0), x @ m)

    torch.manual_seed(0)
    args = [torch.randn(5, 8), torch.randn(8), torch.randn(8, 3)]
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(pointwise), args)
    for got, want in zip(compiled(*args), pointwise(*args)):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)
    assert compiled.kernels
    print("COUNTS", aot_cache.stats()["hits"], c_toolchain.compiler_invocations(), "torch._dynamo" in sys.modules)
""")


def test_a_second_process_compiles_an_inference_graph_without_tracing(tmp_path):
    runs = []
    for which in ("cold", "warm"):
        env = {**os.environ, "LOOM_CACHE_DIR": str(tmp_path), "LOOM_GRAPH_CACHE": "1"}
        env.pop("LOOM_AOT_CACHE", None)
        out = subprocess.run([sys.executable, "-c", _SECOND_PROCESS, which], env=env, capture_output=True,
                             text=True, timeout=300)  # fmt: skip
        assert out.returncode == 0, out.stderr[-3000:]
        runs.append(out.stdout.split("COUNTS")[1].split()[:3])
    assert runs[0][0] == "0" and int(runs[0][1]) >= 1
    assert runs[1] == ["1", "0", "False"]  # from the cache: no trace, no compiler, no torch._dynamo
