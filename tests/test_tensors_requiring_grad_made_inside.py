"""A tensor made inside a compiled function that requires grad (a factory's ``requires_grad=True``,
``requires_grad_()``, ``.requires_grad = True``): the result must carry autograd history as eager's does.
A compiled graph's outputs do not (AOTAutograd does not model a leaf made inside the graph), so each is a
graph break, as in torch.compile, never an output silently detached (a wrong answer found after issue 29).
``requires_grad_()`` on a leaf made in the graph is recorded instead (``variables/made_leaves.py``: the leaf is
made before the graph and handed in; tests/test_leaves_made_in_graph.py)."""

from __future__ import annotations

import pytest
import torch

import loom


def factory_requiring_grad(x):
    w = torch.ones(3, requires_grad=True)
    return x * 2 + w


def factory_requiring_grad_under_enable_grad(x):
    with torch.enable_grad():
        w = torch.ones(3, requires_grad=True)
        return (x * w).sum()


def requires_grad_method(x):
    w = torch.zeros(3).requires_grad_()
    return x * 2 + w


def requires_grad_attribute(x):
    w = torch.zeros(3)
    w.requires_grad = True
    return x * 2 + w


def factory_not_requiring_grad(x):
    return x * 2 + torch.ones(3, requires_grad=False)


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn", [factory_requiring_grad, factory_requiring_grad_under_enable_grad,
                                requires_grad_method, requires_grad_attribute])
def test_a_tensor_requiring_grad_made_inside_keeps_eagers_autograd_history(fn, backend):
    loom.reset()
    x = torch.randn(3)
    expected, got = fn(x), loom.compile(fn, backend=backend)(x)
    assert got.requires_grad and got.grad_fn is not None
    torch.testing.assert_close(got, expected)
    got.sum().backward()  # the history reaches the leaf made inside the function


def test_the_break_names_the_construct():
    loom.reset()
    report = loom.explain(factory_requiring_grad)(torch.randn(3))
    assert report.break_count == 1
    assert "requires_grad" in str(report)


def test_requires_grad_method_on_a_made_leaf_stays_in_one_graph():
    loom.reset()
    report = loom.explain(requires_grad_method)(torch.randn(3))
    assert (report.graph_count, report.break_count) == (1, 0)


def test_a_factory_with_requires_grad_false_stays_in_one_graph():
    loom.reset()
    report = loom.explain(factory_not_requiring_grad)(torch.randn(3))
    assert (report.graph_count, report.break_count) == (1, 0)
