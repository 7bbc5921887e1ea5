"""``tensor.requires_grad = flag``: the property's setter, modelled as ``requires_grad_(flag)``.

Freezing a module's parameters in a loop (``for p in m.parameters(): p.requires_grad = False``) was a graph
break ("Parameter defines 'requires_grad'"); it now freezes them as ``requires_grad_(False)`` does: later
ops carry no gradient to them, and the real parameters are frozen after the graph."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _linear():
    torch.manual_seed(0)
    return nn.Linear(3, 3)


def freeze_then_call(x, lin):
    for p in lin.parameters():
        p.requires_grad = False
    y = lin(x) * 2
    return y, y.requires_grad


def freeze_then_thaw(x, lin):
    lin.weight.requires_grad = False
    lin.bias.requires_grad = False
    a = lin(x)
    lin.weight.requires_grad = True
    b = lin(x)
    return a.requires_grad, b, b.requires_grad


def test_assigning_requires_grad_freezes_parameters_in_one_graph():
    x = torch.arange(3.0)
    expected = freeze_then_call(x, _linear())
    lin = _linear()
    actual = _compiled(freeze_then_call)(x, lin)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] is expected[1] is False
    assert [p.requires_grad for p in lin.parameters()] == [False, False]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_freezing_and_thawing_by_assignment_matches_eager():
    x = torch.arange(3.0)
    expected = freeze_then_thaw(x, _linear())
    lin = _linear()
    actual = _compiled(freeze_then_thaw)(x, lin)
    assert actual[0] is expected[0] is False and actual[2] is expected[2] is True
    torch.testing.assert_close(actual[1], expected[1])
    actual[1].sum().backward()
    assert lin.weight.grad is not None and lin.weight.requires_grad and not lin.bias.requires_grad
    assert loom.stats()["graph_breaks"] == 0
