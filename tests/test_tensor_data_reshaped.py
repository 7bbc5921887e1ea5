"""``x.data = y`` where ``y`` has another shape (PyTorch's test_repros ``test_tensor_set_data``): the graph gives
``x`` ``y``'s storage (``set_``); the graph still receives ``x`` with its own storage and layout."""

from __future__ import annotations

import pytest
import torch

import loom


def _then_add(x, y):
    x.data = y
    x.add_(1)
    return x, y


def _identity_kept(x, y):
    z = x
    x.data = y
    y.data = torch.zeros([0])
    return x is z, x, y.shape


def _handed_on_then_replaced(x, y):
    x.data = y
    y.data = torch.zeros([0])  # x keeps y's first storage (AOTAutograd alone replays y's change first)
    return x, x.shape, y.shape


def _then_read(x, y):
    x.data = y * 2
    return x.sum() * 3, x.shape


def _run(fn, backend):
    loom.reset()
    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    for _ in range(2):
        x, y = torch.arange(3.0), torch.ones(4)
        xe, ye = torch.arange(3.0), torch.ones(4)
        got, expected = compiled(x, y), fn(xe, ye)
        for g, e in zip(got, expected):
            if isinstance(e, torch.Tensor):
                torch.testing.assert_close(g, e)
            else:
                assert g == e
        torch.testing.assert_close(x, xe)
        torch.testing.assert_close(y, ye)
        assert x._version == xe._version or backend != "eager"
    assert loom.stats()["graphs"] == 1


@pytest.mark.parametrize("fn", [_then_add, _identity_kept, _handed_on_then_replaced, _then_read])
def test_new_data_of_another_shape_is_one_graph(fn):
    _run(fn, "eager")
    report = loom.explain(fn)(torch.arange(3.0), torch.ones(4))
    assert (report.graph_count, report.graph_break_count) == (1, 0)


@pytest.mark.parametrize("backend", ["aot_eager", "c"])
@pytest.mark.parametrize("fn", [_identity_kept, _handed_on_then_replaced, _then_read])
def test_backends_compile_it(backend, fn):
    _run(fn, backend)


def test_a_tensor_requiring_grad_still_breaks_on_another_shape():
    def f(p, y):
        p.data = y
        return (p * 2).sum()

    report = loom.explain(f)(torch.nn.Parameter(torch.arange(3.0)), torch.ones(4))
    assert report.graph_break_count == 1
    assert "another shape and the tensor requires grad" in report.breaks[0].why
    loom.reset()
    p, pe = torch.nn.Parameter(torch.arange(3.0)), torch.nn.Parameter(torch.arange(3.0))
    got, expected = loom.compile(f, backend="aot_eager")(p, torch.ones(4)), f(pe, torch.ones(4))
    got.backward()
    expected.backward()
    torch.testing.assert_close(p.grad, pe.grad)


def test_another_dtype_still_breaks():
    def f(x, y):
        x.data = y
        return x + 1

    report = loom.explain(f)(torch.arange(3.0), torch.arange(3))
    assert report.graph_break_count == 1
    assert report.breaks[0].why == "the new data has another dtype or device"
