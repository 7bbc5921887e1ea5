"""``torch.vmap`` of a function that changes its inputs in place (PyTorch's test_functions.py:
``vmap(Tensor.acos_)``): the transform writes the caller's tensors through the batched inputs, and returns
those very tensors. It was a graph break ("its function changes a tensor in place"); now one graph whose
tensors, identities and writes are eager's, also where the function writes a tensor it closes over.
"""

from __future__ import annotations

import pytest
import torch

import loom
import loom_backends

BACKENDS = [name for name in ("eager", "aot_eager", "default") if name in loom_backends.names()]


def _counts(fn, *args):
    report = loom.explain(fn)(*args)
    return report.graph_count, report.graph_break_count, [b.why for b in report.breaks]


def acos_in_place(x):
    z = x.reshape(3, 1).clone() * 0.1
    y = torch.vmap(torch.Tensor.acos_)(z)
    return y is z, z, y


def both_in_place(x):
    a = x.reshape(3, 1).clone() * 0.1
    b = a.clone()

    def both(p, q):
        return p.acos_(), q.acos_()

    c, d = torch.vmap(both)(a, b)
    return c is a, d is b, c is d, c


def writes_the_frames_tensor(x):
    def double(t):
        t.mul_(2)
        return t.sin()

    return torch.vmap(double)(x), x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [acos_in_place, both_in_place])
def test_vmap_of_an_in_place_method_returns_the_callers_tensor_changed(backend, fn):
    x = torch.arange(3.0)
    expected = fn(x)
    got = loom.compile(fn, backend=backend)(x)
    assert [v for v in got if isinstance(v, bool)] == [v for v in expected if isinstance(v, bool)]
    torch.testing.assert_close([v for v in got if isinstance(v, torch.Tensor)],
                               [v for v in expected if isinstance(v, torch.Tensor)])
    assert _counts(fn, x)[:2] == (1, 0)


@pytest.mark.parametrize("backend", BACKENDS)
def test_vmap_writing_a_graph_input_changes_it_once_per_call(backend):
    compiled = loom.compile(writes_the_frames_tensor, backend=backend)
    x, y = torch.linspace(0.1, 0.6, 6).reshape(2, 3), torch.linspace(0.1, 0.6, 6).reshape(2, 3)
    for _ in range(2):
        got, expected = compiled(x), writes_the_frames_tensor(y)
        torch.testing.assert_close(got, expected)
        assert got[1] is x
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("chunk_size", [None, 1])
def test_vmap_writing_a_tensor_it_closes_over_writes_it_as_often_as_eager(backend, chunk_size):
    """The function runs once over the batch (once per chunk with ``chunk_size``): so often is ``w`` changed."""
    def fn(x):
        w = torch.ones(3)

        def f(t):
            w.add_(1)
            return t.sin() * w

        return torch.vmap(f, chunk_size=chunk_size)(x), w

    x = torch.arange(3.0)
    torch.testing.assert_close(loom.compile(fn, backend=backend)(x), fn(x))
    assert _counts(fn, x)[:2] == (1, 0)


def moves_the_batch_dimension(x):
    z = (x.reshape(3, 1) + 1).repeat(1, 2) * 0.1
    y = torch.vmap(torch.Tensor.acos_, in_dims=1, out_dims=0)(z)
    return y is z, y, z


@pytest.mark.parametrize("backend", BACKENDS)
def test_vmap_returning_a_view_of_the_tensor_it_changes_breaks_and_gives_eagers_answer(backend):
    # out_dims other than in_dims: the result is a transposed view of the changed tensor, which the C backend's
    # functionalized graph rebuilt from another layout (a wrong answer), so the call runs natively
    x = torch.arange(3.0)
    loom.reset()
    got = loom.compile(moves_the_batch_dimension, backend=backend)(x)
    expected = moves_the_batch_dimension(x)
    assert got[0] is expected[0]
    torch.testing.assert_close(got[1:], expected[1:])
    assert loom.stats()["graph_breaks"] == 1
