"""CUDA float16 autocast regions in one graph, with eager's dtypes, values and gradients (issue 28).

Needs a GPU: on a machine without one every test here skips, saying so. The CPU bfloat16 regions are in
``test_higher_order_ops.py``.
"""

from __future__ import annotations

import pytest
import torch

import loom
import loom_backends

pytestmark = pytest.mark.skipif(not torch.cuda.is_available(),
                                reason="CUDA float16 autocast needs a GPU (torch.cuda.is_available() is False)")

#: ``triton`` and ``default`` generate Triton kernels for CUDA tensors.
BACKENDS = [name for name in ("eager", "aot_eager", "triton", "default") if name in loom_backends.names()]
ENTER = torch.amp.autocast_mode._enter_autocast


def half_precision(x, w):
    with torch.autocast("cuda", dtype=torch.float16):
        y = x @ w
        with torch.autocast("cuda", enabled=False):
            z = y.float() @ w  # float32 again inside the disabled region
        q = torch.mm(z, w).relu()
    return y, z, q + 1


def test_a_cuda_float16_region_is_one_graph_with_enter_and_exit_nodes():
    x, w = torch.randn(8, 8, device="cuda"), torch.randn(8, 8, device="cuda")
    report = loom.explain(half_precision, backend="eager")(x, w)
    assert report.graph_count == 1 and report.break_count == 0, report
    targets = [n.target for g in report.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]
    assert targets.count(ENTER) == 2


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_cuda_float16_region_gives_eagers_dtypes_values_and_gradients(backend):
    x = torch.randn(8, 8, device="cuda", requires_grad=True)
    w = torch.randn(8, 8, device="cuda", requires_grad=True)
    want = half_precision(x, w)
    got = loom.compile(half_precision, backend=backend)(x, w)
    assert [g.dtype for g in got] == [r.dtype for r in want] == [torch.float16, torch.float32, torch.float16]
    for g, w_ in zip(got, want):
        torch.testing.assert_close(g, w_, atol=1e-2, rtol=1e-2)
    grads_want = torch.autograd.grad(want[2].float().sum(), (x, w))
    grads_got = torch.autograd.grad(got[2].float().sum(), (x, w))
    for g, w_ in zip(grads_got, grads_want):
        torch.testing.assert_close(g, w_, atol=1e-2, rtol=1e-2)
    assert not torch.is_autocast_enabled("cuda")
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0
