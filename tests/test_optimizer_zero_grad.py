"""``optimizer.zero_grad()`` inside compiled code is traced, not a graph break.

torch wraps ``Optimizer.zero_grad`` in ``torch._disable_dynamo`` only to spare dynamo the time of tracing it;
loom traces the function it wraps (``p.grad = None``, or ``detach_``/``zero_`` and ``_foreach_zero_`` with
``set_to_none=False``), so a training step ``loss.backward(); opt.step(); opt.zero_grad()`` breaks only at
``backward``. Each test compares the parameters, gradients and results with eager's.
"""

from __future__ import annotations

import pytest
import torch

import loom


def _model_and_optimizer(foreach=False, momentum=0.9):
    torch.manual_seed(0)
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.Tanh(), torch.nn.Linear(4, 2))
    return model, torch.optim.SGD(model.parameters(), lr=0.1, momentum=momentum, foreach=foreach)


def _loop(model, optimizer, set_to_none=True):
    def train(x):
        for _ in range(3):
            loss = model(x).pow(2).sum()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad(set_to_none=set_to_none)
        return loss.detach()

    return train


def _eager_and_compiled(make_step, x):
    """(result, parameters, gradients) of eager's run, then of loom's (each on a fresh model)."""
    outcomes = []
    for compiled in (False, True):
        model, optimizer = _model_and_optimizer()
        step = make_step(model, optimizer)
        if compiled:
            loom.reset()
            step = loom.compile(step, backend="eager")
        result = step(x)
        outcomes.append((result, [p.detach().clone() for p in model.parameters()],
                         [None if p.grad is None else p.grad.clone() for p in model.parameters()]))
    return outcomes


def _assert_same(actual, expected):
    torch.testing.assert_close(actual[0], expected[0])
    for p, q in zip(actual[1], expected[1]):
        torch.testing.assert_close(p, q)
    for g, h in zip(actual[2], expected[2]):
        assert (g is None) == (h is None)
        if g is not None:
            torch.testing.assert_close(g, h)


def test_a_training_loop_is_one_graph():
    """Forward, ``backward`` (recorded in the graph), the update and ``zero_grad``, three times over."""
    x = torch.randn(3, 4)
    expected, actual = _eager_and_compiled(_loop, x)
    _assert_same(actual, expected)
    assert all(g is None for g in actual[2])
    model, optimizer = _model_and_optimizer()
    optimizer.step()  # (the optimizer's state exists from here on: the trace needs no first-step branch)
    report = loom.explain(_loop(model, optimizer))(x)
    assert (report.graph_count, report.breaks) == (1, []), report.breaks


@pytest.mark.parametrize("foreach", [False, True], ids=["for-loop", "foreach"])
def test_zeroing_in_place_keeps_the_gradient_tensors(foreach):
    """``set_to_none=False``: each gradient is zeroed in place (``_foreach_zero_`` when foreach), as eager."""
    model, optimizer = _model_and_optimizer(foreach=foreach)
    model(torch.randn(3, 4)).sum().backward()
    grads = [p.grad for p in model.parameters()]

    def zero():
        optimizer.zero_grad(set_to_none=False)
        return model[0].weight.grad.sum()

    loom.reset()
    total = loom.compile(zero, backend="eager", fullgraph=True)()
    assert total.item() == 0.0
    assert all(p.grad is g for p, g in zip(model.parameters(), grads))
    assert all(not g.any() for g in grads)
    assert loom.stats()["graph_breaks"] == 0


def test_an_update_then_zero_grad_is_one_graph_under_fullgraph():
    model, optimizer = _model_and_optimizer()
    x = torch.randn(3, 4)
    model(x).sum().backward()
    before = model[0].weight.detach().clone()

    def update():
        optimizer.step()
        optimizer.zero_grad()
        return model[0].weight.detach() * 1

    loom.reset()
    after = loom.compile(update, backend="eager", fullgraph=True)()
    assert not torch.equal(after, before)
    assert all(p.grad is None for p in model.parameters())
    assert loom.stats()["graphs"] == 1


def test_an_override_calling_super_is_traced_too():
    class Counting(torch.optim.SGD):
        zeroed = 0

        def zero_grad(self, set_to_none=True):
            type(self).zeroed += 1
            super().zero_grad(set_to_none)

    def make(model, _optimizer):
        optimizer = Counting(model.parameters(), lr=0.1)

        def train(x):
            loss = model(x).sum()
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            return loss.detach()

        return train

    x = torch.randn(3, 4)
    expected, actual = _eager_and_compiled(make, x)
    _assert_same(actual, expected)
    assert Counting.zeroed == 2  # once in eager's run, once in loom's


def test_zero_grad_read_as_an_object_is_still_the_disabled_function():
    """Only a call is traced: the attribute itself is torch's wrapper, as eager sees it."""
    model, optimizer = _model_and_optimizer()

    def read(x):
        return x + 1, type(optimizer).zero_grad

    loom.reset()
    _, got = loom.compile(read, backend="eager")(torch.ones(2))
    assert got is torch.optim.Optimizer.zero_grad
