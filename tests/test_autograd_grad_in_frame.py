"""``torch.autograd.grad`` inside a compiled frame: one graph break naming the call (as torch.compile breaks
there), the engine runs on the real tensors between the graphs, and gradients taken with
``create_graph=True`` keep their graph (differentiating a compiled graph's backward again raises, as with
torch.compile, instead of giving an answer cut from the graph). ``torch.autograd.backward`` of one tensor is
recorded in the graph (tests/test_backward_in_graph.py), unless the program asks for ``create_graph``."""

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


def test_autograd_grad_breaks_once_naming_the_call():
    x = torch.ones(3, requires_grad=True)
    loom.reset()
    report = loom.explain(_gradient_doubled)(x)
    assert (report.graph_count, report.graph_break_count) == (2, 1)
    (brk,) = report.breaks
    assert brk.what == "torch.autograd.grad()" and "autograd" in brk.why
    assert "torch.autograd.grad(y, x)" in brk.source_line
    torch.testing.assert_close(loom.compile(_gradient_doubled)(x), _gradient_doubled(x))


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
