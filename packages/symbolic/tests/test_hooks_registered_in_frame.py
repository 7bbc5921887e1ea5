"""Hooks a compiled frame registers (or removes) itself, then relies on before the graph has run.

A module's backward hook registered in the frame lives only in the trace's copy of the hook table until the
graph runs: calling the module must see it there (and run the module natively, as with a backward hook
registered before the frame), or the backward pass would miss the hook."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def _linear():
    torch.manual_seed(0)
    return nn.Linear(3, 3)


def backward_hook_scales_grad_input(x, lin):
    lin.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 3,))
    inp = (x + 1).reshape(1, 3).requires_grad_()
    lin(inp).sum().backward()
    return inp.grad * 1


def backward_pre_hook_scales_grad_output(x, lin):
    lin.register_full_backward_pre_hook(lambda m, gout: (gout[0] * 2,))
    lin(x.reshape(1, 3)).sum().backward()
    return lin.weight.grad + 0


def backward_hook_registered_then_removed(x, lin):
    handle = lin.register_full_backward_hook(lambda m, gin, gout: (gin[0] * 3,))
    handle.remove()
    return lin(x + 1) * 2


def test_a_backward_hook_registered_in_the_frame_runs_in_the_backward_pass():
    x = torch.arange(3.0)
    expected = backward_hook_scales_grad_input(x, _linear())
    actual = _compiled(backward_hook_scales_grad_input)(x, _linear())
    torch.testing.assert_close(actual, expected)


def test_a_backward_pre_hook_registered_in_the_frame_runs_in_the_backward_pass():
    x = torch.arange(3.0)
    expected = backward_pre_hook_scales_grad_output(x, _linear())
    actual = _compiled(backward_pre_hook_scales_grad_output)(x, _linear())
    torch.testing.assert_close(actual, expected)


def test_a_backward_hook_removed_in_the_frame_leaves_the_call_in_the_graph():
    x = torch.arange(3.0)
    expected = backward_hook_registered_then_removed(x, _linear())
    actual = _compiled(backward_hook_registered_then_removed)(x, _linear())
    torch.testing.assert_close(actual, expected)
    assert _counts() == (1, 0)
