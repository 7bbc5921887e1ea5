"""A tensor made inside a compiled function that requires grad (a factory's ``requires_grad=True``,
``requires_grad_()``, ``.requires_grad = True``): the result must carry autograd history as eager's does.
A compiled graph's outputs do not (AOTAutograd does not model a leaf made inside the graph), so each is a
graph break, as in torch.compile, never an output silently detached (a wrong answer found after issue 29).
``requires_grad_()`` on a leaf made in the graph, and a factory's ``requires_grad=True``, are recorded instead
(``variables/made_leaves.py``: the leaf is made before the graph and handed in; tests/test_leaves_made_in_graph.py,
tests/test_factory_requires_grad.py); a leaf of symbolic size still breaks."""

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


def factory_of_symbolic_size(x):
    w = torch.ones(x.shape[0], requires_grad=True)
    return x * 2 + w


def test_the_break_names_the_construct():
    loom.reset()
    compiled = loom.compile(factory_of_symbolic_size, backend="eager", dynamic=True)
    for n in (3, 5):  # a leaf of symbolic size is not made before the graph: it breaks, keeping autograd
        x = torch.randn(n)
        got = compiled(x)
        assert got.requires_grad and got.grad_fn is not None
        torch.testing.assert_close(got, factory_of_symbolic_size(x))
    assert loom.stats()["graph_breaks"] == 1


def test_the_break_reason_names_requires_grad(caplog):
    with caplog.at_level("INFO", logger="loom.graph_breaks"):
        test_the_break_names_the_construct()
    assert "requires_grad=True" in caplog.text


def test_a_factory_requiring_grad_stays_in_one_graph():
    loom.reset()
    report = loom.explain(factory_requiring_grad)(torch.randn(3))
    assert (report.graph_count, report.break_count) == (1, 0)


def test_requires_grad_method_on_a_made_leaf_stays_in_one_graph():
    loom.reset()
    report = loom.explain(requires_grad_method)(torch.randn(3))
    assert (report.graph_count, report.break_count) == (1, 0)


def test_a_factory_with_requires_grad_false_stays_in_one_graph():
    loom.reset()
    report = loom.explain(factory_not_requiring_grad)(torch.randn(3))
    assert (report.graph_count, report.break_count) == (1, 0)
