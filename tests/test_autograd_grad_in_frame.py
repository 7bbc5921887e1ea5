"""``torch.autograd.grad`` inside a compiled frame: recorded in the graph (``variables/autograd_grad.py``),
where torch.compile breaks; with ``create_graph=True`` it is one graph break naming the call, the engine
runs on the real tensors between the graphs, and gradients taken with
``create_graph=True`` keep their graph (differentiating a compiled graph's backward again raises, as with
torch.compile, instead of giving an answer cut from the graph). ``torch.autograd.backward`` of one tensor is
recorded in the graph too (tests/test_backward_in_graph.py)."""

from __future__ import annotations

import pytest
import torch

import loom


def _gradient_doubled(x):
    y = (x * x).sum()
    (g,) = torch.autograd.grad(y, x)
    return g * 2


def _gradient_with_graph(x):
    y = x.sin()
    (g,) = torch.autograd.grad(y.sum(), x, create_graph=True)
    return g + 1


def _backward_in_frame(x):
    y = (x * 3).sum()
    torch.autograd.backward(y)
    return x.grad * 1


@pytest.mark.parametrize("backend", ["c", "aot_eager", "eager"])
def test_autograd_grad_is_recorded_in_the_graph(backend):
    x = torch.ones(3, requires_grad=True)
    loom.reset()
    report = loom.explain(_gradient_doubled, backend=backend)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    assert "torch.autograd.grad" in report.ops_per_graph[0]
    torch.testing.assert_close(report.result, _gradient_doubled(x))
    assert x.grad is None  # nothing accumulated


def test_autograd_grad_with_create_graph_breaks_once_naming_the_call():
    x = torch.ones(3, requires_grad=True)
    loom.reset()
    report = loom.explain(_gradient_with_graph)(x)
    assert (report.graph_count, report.graph_break_count) == (2, 1)
    (brk,) = report.breaks
    assert brk.what == "torch.autograd.grad()" and "autograd" in brk.why
    assert "create_graph=True" in brk.source_line


def _unused_input(x):
    a = x.detach().requires_grad_()
    b = x.detach().requires_grad_()
    return torch.autograd.grad((a * 2).sum(), [a, b])


def test_an_input_the_outputs_do_not_reach_raises_eagers_error():
    loom.reset()
    with pytest.raises(RuntimeError, match="appears to not have been used"):
        loom.compile(_unused_input)(torch.ones(2))


def _several_outputs(x, w):
    y = x * w
    return torch.autograd.grad([y.sum(), (y * y).sum()], [w], grad_outputs=[None, torch.tensor(0.5)])


@pytest.mark.parametrize("backend", ["c", "aot_eager", "eager"])
def test_several_outputs_and_grad_outputs(backend):
    w = torch.nn.Parameter(torch.tensor([1.0, -2.0]))
    x = torch.tensor([3.0, 4.0])
    loom.reset()
    report = loom.explain(_several_outputs, backend=backend)(x, w)
    assert report.breaks == []
    torch.testing.assert_close(report.result, _several_outputs(x, w))


def test_autograd_backward_is_recorded_in_the_graph_and_accumulates_as_eager():
    x = torch.ones(3, requires_grad=True)
    want = _backward_in_frame(x)
    x.grad = None
    loom.reset()
    got = loom.compile(_backward_in_frame)(x)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(x.grad, torch.full((3,), 3.0))
    assert loom.stats()["graph_breaks"] == 0


@pytest.mark.parametrize("backend", ["c", "aot_eager", "eager"])
def test_gradients_with_create_graph_keep_their_graph(backend):
    x = torch.ones(3, requires_grad=True)
    want = _gradient_with_graph(x)
    for _ in range(2):  # the second call may be served by the compiled-graph cache
        loom.reset()
        got = loom.compile(_gradient_with_graph, backend=backend)(x)
        torch.testing.assert_close(got.detach(), want.detach())
        assert got.requires_grad
