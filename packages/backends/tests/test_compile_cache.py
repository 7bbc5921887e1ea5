"""What a second process over warm caches does: the same C source whatever Python's hash seed (so the
compiler's disk cache hits), and loom's compiled-graph cache (see ``loom_backends.graph_cache``)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

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
