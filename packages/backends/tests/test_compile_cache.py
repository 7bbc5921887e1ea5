"""What a second process over warm caches does: the same C source whatever Python's hash seed (so the
compiler's disk cache hits), and loom's compiled-graph cache (see ``loom_backends.graph_cache``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap

import pytest
import torch

from loom_backends import graph_cache
from loom_backends.c import compile_graph, config

_SAME_SOURCE = textwrap.dedent("""
    import hashlib, torch, loom_backends
    def f(a, w):  # a split pointwise kernel: two index atoms of equal text length, (xo/32)%6 and xi%32
        return ((a + w).view(4, 64, 6, 32).transpose(1, 2) * 0.5).exp()
    a, w = torch.randn(4, 64, 192), torch.randn(192)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(f), [a, w])
    print("SOURCE", hashlib.sha256(compiled.graphs[0].compiled.c_source.encode()).hexdigest())
""")


def _run(code: str, env: dict[str, str]) -> str:
    out = subprocess.run(
        [sys.executable, "-c", code], env={**os.environ, **env}, capture_output=True, text=True, timeout=300
    )
    assert out.returncode == 0, out.stderr[-3000:]
    return out.stdout


def test_the_generated_c_source_does_not_depend_on_the_hash_seed(tmp_path):
    # Index variables were named in set order: a process with another PYTHONHASHSEED generated other
    # text for the same graph, missed the compiler's disk cache and compiled again.
    digests = {
        _run(_SAME_SOURCE, {"PYTHONHASHSEED": s, "LOOM_CACHE_DIR": str(tmp_path)})
        .split("SOURCE")[1]
        .split()[0]
        for s in ("1", "2")
    }
    assert len(digests) == 1


# --- the graph cache -----------------------------------------------------------------------------------

_SECOND_PROCESS = textwrap.dedent("""
    import torch, loom_backends
    from loom_backends import c_toolchain, graph_cache
    from loom_backends.c import compile as c_compile

    lowered = []
    class CountingLowering(c_compile.GraphLowering):
        def run(self):
            lowered.append(1)
            return super().run()
    c_compile.GraphLowering = CountingLowering

    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(12, 16), torch.nn.GELU(), torch.nn.LayerNorm(16), torch.nn.Linear(16, 4))
    x = torch.randn(8, 12, requires_grad=True)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(model), [x])
    out = compiled(x)
    out.sum().backward()
    grads = [x.grad.clone()] + [p.grad.clone() for p in model.parameters()]
    x.grad = None
    for p in model.parameters():
        p.grad = None
    want = model(x)
    want.sum().backward()
    assert torch.allclose(out, want, atol=1e-5, rtol=1e-4)
    for got, ref in zip(grads, [x.grad] + [p.grad for p in model.parameters()]):
        assert torch.allclose(got, ref, atol=1e-5, rtol=1e-4)
    assert [g.kind for g in compiled.graphs] == ["forward", "backward"]
    assert all(g.compiled.fallback_reason is None and g.compiled.kernels for g in compiled.graphs)
    print("COUNTS", len(lowered), c_toolchain.compiler_invocations(), graph_cache.stats()["hits"])
    # the partitioner's CSE is loom's own (partition.py): torch's would have imported most of inductor
    import sys
    print("PATTERN_MATCHER", "torch._inductor.pattern_matcher" in sys.modules)
""")


def test_a_second_process_lowers_and_compiles_nothing_and_trains_as_eager(tmp_path):
    runs = []
    for _ in range(2):
        out = _run(_SECOND_PROCESS, {"LOOM_CACHE_DIR": str(tmp_path), "LOOM_GRAPH_CACHE": "1"})
        runs.append(tuple(int(n) for n in out.split("COUNTS")[1].split()[:3]))
        assert out.split("PATTERN_MATCHER")[1].split()[0] == "False"
    (lowered, compiles, hits), (lowered2, compiles2, hits2) = runs
    assert lowered == 2 and compiles >= 1 and hits == 0
    assert (lowered2, compiles2, hits2) == (0, 0, 2)


aten = torch.ops.aten


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("LOOM_CACHE_DIR", str(tmp_path))
    monkeypatch.delenv("LOOM_GRAPH_CACHE", raising=False)
    return tmp_path / "graphs"


def compile_counting(fn, inputs):
    """compile_graph on ``fn``'s FX graph, and how each graph cache count changed."""
    before = graph_cache.stats()
    gm = fn if isinstance(fn, torch.fx.GraphModule) else torch.fx.symbolic_trace(fn)
    compiled = compile_graph(gm, inputs)
    after = graph_cache.stats()
    return compiled, {name: after[name] - before[name] for name in after}


def tanh_twice(a):
    return (aten.mul.Tensor(aten.tanh.default(a), 2.0),)


class WithConstant(torch.nn.Module):
    def __init__(self, constant):
        super().__init__()
        self.register_buffer("c", constant)

    def forward(self, a):
        return (aten.add.Tensor(aten.exp.default(a), self.c),)


def test_the_same_graph_is_read_back_and_any_change_misses(cache, monkeypatch):
    x = torch.randn(6, 10)
    first, counts = compile_counting(tanh_twice, [x])
    assert (counts["misses"], counts["stored"]) == (1, 1)
    again, counts = compile_counting(tanh_twice, [x])
    assert (counts["hits"], counts["misses"]) == (1, 0)
    assert again.c_source == first.c_source and [k.name for k in again.kernels] == [k.name for k in first.kernels]
    torch.testing.assert_close(again(x), tanh_twice(x))
    changed = [
        (lambda a: (aten.mul.Tensor(aten.sigmoid.default(a), 2.0),), [x]),  # another op
        (lambda a: (aten.mul.Tensor(aten.tanh.default(a), 3.0),), [x]),  # another constant
        (tanh_twice, [x.double()]),  # dtype
        (tanh_twice, [torch.randn(6, 11)]),  # size
        (tanh_twice, [torch.randn(10, 6).t()]),  # strides
        (WithConstant(torch.arange(6.0)), [torch.randn(6)]),
        (WithConstant(torch.arange(6.0) + 1), [torch.randn(6)]),  # a tensor constant's contents
    ]
    for fn, inputs in changed:
        compiled, counts = compile_counting(fn, inputs)
        assert (counts["misses"], counts["hits"]) == (1, 0), fn
        torch.testing.assert_close(compiled(*inputs), fn(*inputs))
    monkeypatch.setattr(config, "c_parallel_min_elements", config.c_parallel_min_elements + 1)
    _, counts = compile_counting(tanh_twice, [x])
    assert (counts["misses"], counts["hits"]) == (1, 0)


def test_a_graph_holding_a_tensor_constant_is_read_back_with_it(cache):
    module, x = WithConstant(torch.linspace(-1, 1, 6)), torch.randn(6)
    compile_counting(module, [x])
    compiled, counts = compile_counting(module, [x])
    assert counts["hits"] == 1
    torch.testing.assert_close(compiled(x), module(x))


def _damage(cache, how):
    (entry,) = cache.glob("*.json")
    if how == "truncated":
        entry.write_text(entry.read_text()[:50])
    elif how == "a host that does not run":
        data = json.loads(entry.read_text())
        data["host_source"] = "def make_call(:\n"
        entry.write_text(json.dumps(data))
    elif how == "another key":
        data = json.loads(entry.read_text())
        data["key"] = "0" * 40
        entry.write_text(json.dumps(data))
    elif how == "tensors":
        (tensors,) = cache.glob("*.pt")
        tensors.write_bytes(tensors.read_bytes()[:-8] + b"\0" * 8)


@pytest.mark.parametrize("how", ["truncated", "a host that does not run", "another key", "tensors"])
def test_a_damaged_entry_is_ignored_and_the_graph_compiled_again(cache, how):
    module, x = WithConstant(torch.linspace(-1, 1, 6)), torch.randn(6)
    compile_counting(module, [x])
    _damage(cache, how)
    compiled, counts = compile_counting(module, [x])
    assert (counts["ignored"], counts["hits"], counts["stored"]) == (1, 0, 1)
    torch.testing.assert_close(compiled(x), module(x))
    again, counts = compile_counting(module, [x])  # stored again, whole
    assert counts["hits"] == 1
    torch.testing.assert_close(again(x), module(x))


@torch.fx.wrap
def _user_function(a):
    return a + 1


def test_what_a_key_cannot_name_is_not_cached(cache, monkeypatch):
    gm = torch.fx.symbolic_trace(lambda a: (_user_function(aten.sin.default(a)),))
    assert graph_cache.key_for(gm, [torch.randn(3)], "inference", "c") is None
    plain = torch.fx.symbolic_trace(tanh_twice)
    assert graph_cache.key_for(plain, [torch.randn(3)], "inference", "c") is not None
    monkeypatch.setenv("LOOM_GRAPH_CACHE", "0")
    assert graph_cache.key_for(plain, [torch.randn(3)], "inference", "c") is None
    _, counts = compile_counting(tanh_twice, [torch.randn(3)])
    assert counts == {name: 0 for name in counts} and not cache.exists()


def test_the_cache_reads_and_writes_real_tensors_under_a_callers_fake_mode(cache):
    # torch.compile calls a backend with its FakeTensorMode active; the cache's tensors stay real.
    from torch._subclasses.fake_tensor import FakeTensorMode

    module, x = WithConstant(torch.linspace(-1, 1, 6)), torch.randn(6)
    for expected in ("stored", "hits"):
        with FakeTensorMode(allow_non_fake_inputs=True):
            compiled, counts = compile_counting(module, [x])
        assert counts[expected] == 1
        torch.testing.assert_close(compiled(x), module(x))
