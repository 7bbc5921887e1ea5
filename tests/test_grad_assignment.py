"""``x.grad = g`` and ``x._grad = g`` inside compiled code (PyTorch's test_repros assigns ``_grad`` of a
made parameter): captured in the graph when eager accepts the gradient, with later reads seeing it and
the real tensor holding it afterwards; a gradient eager refuses breaks, and eager's error is raised."""

from __future__ import annotations

import pytest
import torch

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend."""
    return loom.explain(fn, backend="eager")(*args)


def counts(fn, *args):
    report = explained(fn, *args)
    return report.graph_count, report.break_count


def grad_of_made_leaf(x, g):
    w = x.clone().requires_grad_(True)
    w._grad = g
    return w.grad * 2, w.grad is g, w


def grad_of_input(x, g):
    x.grad = g
    return x.grad + 1, x._grad is g


def test_private_grad_of_a_made_leaf_is_one_graph_and_sticks():
    x, g = torch.arange(3.0), torch.ones(3)
    assert counts(grad_of_made_leaf, x, g) == (1, 0)
    loom.reset()
    doubled, same_object, w = loom.compile(grad_of_made_leaf, backend="eager")(x, g)
    torch.testing.assert_close(doubled, torch.full((3,), 2.0))
    assert same_object is True
    assert w.grad is g and w._grad is g


def test_grad_of_an_input_is_one_graph_and_is_assigned_after():
    g = torch.full((3,), 5.0)
    assert counts(grad_of_input, torch.arange(3.0), g) == (1, 0)
    loom.reset()
    x = torch.arange(3.0)
    plus_one, same_object = loom.compile(grad_of_input, backend="eager")(x, g)
    torch.testing.assert_close(plus_one, torch.full((3,), 6.0))
    assert same_object is True and x.grad is g


@pytest.mark.parametrize("bad", [torch.ones(4), torch.ones(3, dtype=torch.float64)], ids=["size", "dtype"])
def test_a_gradient_eager_refuses_breaks_and_raises_eagers_error(bad):
    loom.reset()
    with pytest.raises(RuntimeError) as eager:
        grad_of_input(torch.arange(3.0), bad)
    loom.reset()
    with pytest.raises(RuntimeError) as compiled:
        loom.compile(grad_of_input, backend="eager")(torch.arange(3.0), bad)
    assert str(compiled.value) == str(eager.value)
