"""Higher-order operations and state regions captured in one graph, as torch.compile captures them.

Each construct is compiled with every loom backend (the ``triton`` one under Triton's CPU interpreter, so
shapes stay tiny), checked against eager for values and gradients, and pinned at 1 graph and 0 breaks.
"""

from __future__ import annotations

import pytest
import torch

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager", "triton", "c") if name in loom_backends.names()]
ENTER, EXIT = torch.amp.autocast_mode._enter_autocast, torch.amp.autocast_mode._exit_autocast


def one_graph(fn, *args):
    """``loom.explain`` of one call: asserts 1 graph and 0 breaks, returns the report."""
    report = loom.explain(fn)(*args)
    assert report.graph_count == 1 and report.break_count == 0, report
    return report


def graph_targets(report):
    return [n.target for g in report.graphs for n in g.graph_module.graph.nodes if n.op == "call_function"]


def close(got, want, tol):
    if isinstance(want, torch.Tensor):
        assert got.dtype == want.dtype and got.shape == want.shape
        torch.testing.assert_close(got, want, atol=tol, rtol=tol)
    else:
        assert len(got) == len(want)
        for g, w in zip(got, want):
            close(g, w, tol)


def check_values_and_grads(fn, args, backend, tol=1e-5, out_of=lambda r: r):
    """``fn`` compiled with ``backend`` gives eager's values and eager's gradients for every input that requires grad."""
    compiled = loom.compile(fn, backend=backend)
    want, got = fn(*args), compiled(*args)
    close(got, want, tol)
    leaves = [a for a in args if isinstance(a, torch.Tensor) and a.requires_grad]
    if leaves:
        grads_want = torch.autograd.grad(out_of(want).float().sum(), leaves)
        grads_got = torch.autograd.grad(out_of(got).float().sum(), leaves)
        close(grads_got, grads_want, tol)


# -- autocast regions -----------------------------------------------------------------------------------
def mixed_precision(x, w):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = x @ w
        with torch.autocast(device_type="cpu", enabled=False):
            z = y.float() @ w  # float32 again inside the disabled region
        q = torch.mm(z, w)
    return y, z, q + 1


def shorthand(x):
    with torch.cpu.amp.autocast():
        return torch.relu(x @ x.t())


@pytest.mark.filterwarnings("ignore:`torch.cpu.amp.autocast")
def test_autocast_regions_are_one_graph_with_enter_and_exit_nodes():
    x, w = torch.randn(3, 3), torch.randn(3, 3)
    targets = graph_targets(one_graph(mixed_precision, x, w))
    assert targets.count(ENTER) == 2 and targets.count(EXIT) == 2
    assert targets.index(ENTER) < targets.index(EXIT)
    assert graph_targets(one_graph(shorthand, x)).count(ENTER) == 1


@pytest.mark.filterwarnings("ignore:`torch.cpu.amp.autocast")
@pytest.mark.parametrize("backend", BACKENDS)
def test_autocast_regions_give_eagers_dtypes_values_and_gradients(backend):
    x, w = torch.randn(3, 3, requires_grad=True), torch.randn(3, 3, requires_grad=True)
    check_values_and_grads(mixed_precision, (x, w), backend, tol=0.1, out_of=lambda r: r[2])
    check_values_and_grads(shorthand, (x,), backend, tol=0.1)
    assert not torch.is_autocast_enabled("cpu")


def test_a_graph_break_inside_an_autocast_region_runs_the_rest_inside_it():
    def breaks_inside(x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            y = x @ x
            loom.graph_break()
            z = y @ x
        return z, z.dtype

    x = torch.randn(3, 3)
    z, dtype = loom.compile(breaks_inside)(x)
    assert dtype == torch.bfloat16 and torch.equal(z, breaks_inside(x)[0])
    assert not torch.is_autocast_enabled("cpu")
