"""``loom_backends.reload(backend, key)``: a compiled function given back, in another process, from the
``cache_key`` its compile returned — from the disk caches alone (no tracing, no FakeTensorMode, no
``torch._dynamo``, no C compiler), behaving as the compiled function did."""

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

from . import test_aot_cache as base

cache = base.cache  # the cache's fixture: a fresh cache directory, both caches on


def infer(x, w, m):
    return ((x * w).sin() + 1.0, x.exp().sum(1), x @ m)  # the product: an ATen call


def train(x, w, b):
    return (F.gelu(F.linear(x, w, b)).tanh(),)


def infer_inputs():
    torch.manual_seed(0)
    return [torch.randn(4, 8), torch.randn(8), torch.randn(8, 3)]


def train_inputs():
    torch.manual_seed(1)
    return [torch.randn(4, 8), torch.randn(6, 8, requires_grad=True), torch.randn(6, requires_grad=True)]


def compile_c(fn, inputs):
    return loom_backends.get("c")(torch.fx.symbolic_trace(fn), inputs)


def counts_since(before):
    after = aot_cache.stats()
    return {k: after[k] - before[k] for k in after}


def compile_both():
    """An inference and a training graph compiled with ``c`` (the training one run backward once, which
    stores its entry); their cache keys."""
    inference = compile_c(infer, infer_inputs())
    inputs = train_inputs()
    training = compile_c(train, inputs)
    training(*inputs)[0].sum().backward()
    assert [g.kind for g in inference.graphs] == ["inference"]
    assert [g.kind for g in training.graphs] == ["forward", "backward"]
    return inference.cache_key, training.cache_key


_FIRST_PROCESS = textwrap.dedent("""
    import json, torch, torch.nn.functional as F, loom_backends

    def infer(x, w, m):
        return ((x * w).sin() + 1.0, x.exp().sum(1), x @ m)

    def train(x, w, b):
        return (F.gelu(F.linear(x, w, b)).tanh(),)

    torch.manual_seed(0)
    inference = loom_backends.get("c")(torch.fx.symbolic_trace(infer), [torch.randn(4, 8), torch.randn(8),
                                                                         torch.randn(8, 3)])
    torch.manual_seed(1)
    inputs = [torch.randn(4, 8), torch.randn(6, 8, requires_grad=True), torch.randn(6, requires_grad=True)]
    training = loom_backends.get("c")(torch.fx.symbolic_trace(train), inputs)
    training(*inputs)[0].sum().backward()  # stores the training entry
    print("KEYS", json.dumps({"inference": inference.cache_key, "training": training.cache_key}))
""")

_SECOND_PROCESS = textwrap.dedent("""
    import json, sys
    import torch, torch.nn.functional as F
    import torch._subclasses.fake_tensor as fake_tensor
    import torch.fx.experimental.proxy_tensor as proxy_tensor

    def refuse(*args, **kwargs):
        raise AssertionError("a reload traced or faked something")

    fake_tensor.FakeTensorMode.__init__ = refuse
    proxy_tensor.make_fx = refuse

    import loom_backends
    from loom_backends import aot_cache, c_toolchain

    keys = json.loads(sys.argv[1])
    inference = loom_backends.reload("c", keys["inference"])
    training = loom_backends.reload("c", keys["training"])
    assert inference.cache_key == keys["inference"] and training.cache_key == keys["training"]
    assert [g.kind for g in inference.graphs] == ["inference"] and inference.kernels
    assert [g.kind for g in training.graphs] == ["forward", "backward"] and training.kernels

    torch.manual_seed(0)
    x, w, m = torch.randn(4, 8), torch.randn(8), torch.randn(8, 3)
    want = ((x * w).sin() + 1.0, x.exp().sum(1), x @ m)
    got = inference(x, w, m)
    for g, e in zip(got, want):
        torch.testing.assert_close(g, e, atol=1e-5, rtol=1e-4)
    x.requires_grad_()
    assert not any(t.requires_grad for t in inference(x, w, m))  # grad mode off inside, as compiled

    torch.manual_seed(1)
    inputs = [torch.randn(4, 8), torch.randn(6, 8, requires_grad=True), torch.randn(6, requires_grad=True)]
    (out,) = training(*inputs)
    out.sum().backward()
    grads = [inputs[1].grad, inputs[2].grad]
    for t in inputs[1:]:
        t.grad = None
    (want,) = (F.gelu(F.linear(*inputs)).tanh(),)
    want.sum().backward()
    torch.testing.assert_close(out, want, atol=1e-5, rtol=1e-4)
    for g, e in zip(grads, [inputs[1].grad, inputs[2].grad]):
        torch.testing.assert_close(g, e, atol=1e-5, rtol=1e-4)
    assert inputs[0].grad is None
    print("RESULT", json.dumps({
        "dynamo": "torch._dynamo" in sys.modules,
        "aot_autograd": "torch._functorch.aot_autograd" in sys.modules,
        "compiles": c_toolchain.compiler_invocations(),
        "counts": aot_cache.stats(),
    }))
""")


def run_process(code, cache_root, *args):
    """``code`` run by a fresh interpreter over the caches under ``cache_root`` (turned on); its stdout."""
    env = {**os.environ, "LOOM_CACHE_DIR": str(cache_root), "LOOM_GRAPH_CACHE": "1"}
    env.pop("LOOM_AOT_CACHE", None)
    out = subprocess.run([sys.executable, "-c", code, *args], env=env, capture_output=True, text=True,
                         timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_a_second_process_reloads_both_graphs_from_their_keys_alone(tmp_path):
    # Both processes fresh: a key covers the compiling process's configs, which tests here may change.
    keys = json.loads(run_process(_FIRST_PROCESS, tmp_path).split("KEYS", 1)[1])
    assert keys["inference"] and keys["training"] and keys["inference"] != keys["training"]
    result = json.loads(run_process(_SECOND_PROCESS, tmp_path, json.dumps(keys)).split("RESULT", 1)[1])
    assert result["dynamo"] is False and result["aot_autograd"] is False
    assert result["compiles"] == 0  # the shared objects came from the C toolchain's cache
    assert result["counts"]["hits"] == 2 and result["counts"]["ignored"] == 0


def test_a_reload_in_this_process_behaves_as_the_compiled_function(cache):
    inference_key, training_key = compile_both()
    before = aot_cache.stats()
    inference = loom_backends.reload("c", inference_key)
    training = loom_backends.reload("c", training_key)
    assert counts_since(before)["hits"] == 2
    args = infer_inputs()
    for got, want in zip(inference(*args), infer(*args)):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)
    inputs = train_inputs()
    (out,) = training(*inputs)
    assert out.requires_grad
    out.sum().backward()
    grads = [t.grad for t in inputs[1:]]
    for t in inputs[1:]:
        t.grad = None
    train(*inputs)[0].sum().backward()
    for got, want in zip(grads, [t.grad for t in inputs[1:]]):
        torch.testing.assert_close(got, want, atol=1e-5, rtol=1e-4)
    # the default backend compiles CPU graphs with c: its reloader finds c's entries
    assert loom_backends.reload("default", inference_key).cache_key == inference_key


@pytest.mark.parametrize("how", ["missing", "truncated", "other versions", "other config", "its compiled graph gone"])
def test_an_entry_that_is_not_there_whole_gives_none(cache, how, monkeypatch):
    inference_key, _ = compile_both()
    entry = cache / f"{inference_key}.json"
    if how == "other config":  # the key covered the compiling process's config: code generated for it
        from loom_backends.kernels.config import config

        monkeypatch.setattr(config, "looped_rblock", config.looped_rblock * 2)
    elif how == "missing":
        entry.unlink()
    elif how == "truncated":
        entry.write_text(entry.read_text()[:100])
    elif how == "other versions":
        data = json.loads(entry.read_text())
        data["environment"] = "0" * 40
        entry.write_text(json.dumps(data))
    else:
        graph_key = json.loads(entry.read_text())["inference"]["key"]
        (cache.parent / "graphs" / f"{graph_key}.json").unlink()
    before = aot_cache.stats()
    assert loom_backends.reload("c", inference_key) is None
    counts = counts_since(before)
    assert counts["hits"] == 0
    assert (counts["misses"], counts["ignored"]) == ((1, 0) if how == "missing" else (0, 1))


def test_the_cache_turned_off_gives_none(cache, monkeypatch):
    inference_key, _ = compile_both()
    monkeypatch.setenv("LOOM_AOT_CACHE", "0")
    assert loom_backends.reload("c", inference_key) is None


def test_bad_arguments_raise(cache):
    key = "0" * 40
    with pytest.raises(ValueError, match=r"no_such_backend.*known backends: .*c"):
        loom_backends.reload("no_such_backend", key)
    for name, bad in [(3, key), ("c", 3), ("c", None)]:
        with pytest.raises(TypeError):
            loom_backends.reload(name, bad)
    for bad in ["", "../../etc/passwd", "A" * 40, key + "0"]:
        with pytest.raises(ValueError):
            loom_backends.reload("c", bad)
    assert loom_backends.reload("eager", key) is None  # no reloader
    assert loom_backends.reload("c", key) is None  # no entry


def test_a_reloader_is_registered_beside_its_backend_and_stays_with_its_name():
    calls = []

    @loom_backends.register("test_reloadable")
    def backend(gm, example_inputs):
        return gm.forward

    @loom_backends.register_reloader("test_reloadable")
    def reloader(key):
        calls.append(key)
        return None

    try:
        assert loom_backends.has_reloader("test_reloadable") and loom_backends.has_reloader("c")
        assert not loom_backends.has_reloader("eager") and not loom_backends.has_reloader(3)
        assert loom_backends.reload("test_reloadable", "k") is None and calls == ["k"]
        with pytest.raises(ValueError):
            loom_backends.register_reloader("test_reloadable")(lambda key: None)
    finally:
        loom_backends.unregister("test_reloadable")
    with pytest.raises(ValueError):  # no such backend now
        loom_backends.reload("test_reloadable", "k")
    loom_backends.register("test_reloadable")(backend)  # registered again (a test's stand-in restored)
    try:
        assert loom_backends.reload("test_reloadable", "k2") is None and calls == ["k", "k2"]
    finally:
        loom_backends.unregister("test_reloadable")


def single(x, w):
    return (x * w).cos()  # not a tuple: compiled with an unflatten a reload would not rebuild


def mutates(x, w):
    x.add_(1.0)
    return (x * w,)


def test_cache_key_is_none_where_the_cache_bypasses_the_graph(cache, dynamic, monkeypatch):
    args = infer_inputs()
    x, w = args[:2]
    assert compile_c(infer, args).cache_key is not None
    assert compile_c(single, [x, w]).cache_key is None
    assert compile_c(mutates, [x.clone(), w]).cache_key is None  # no one trace, no training graph
    gm, example = dynamic.graph(infer, args, {0: [0]})
    assert loom_backends.get("c")(gm, example).cache_key is None  # symbolic sizes
    monkeypatch.setenv("LOOM_AOT_CACHE", "0")
    assert compile_c(infer, args).cache_key is None
