"""``tensor.grad_fn`` of a tensor that does not require grad (issue 29, Paddle's SOT tensor tests): autograd
records no history for it, so the read is ``None`` while tracing instead of a graph break. A tensor that
requires grad keeps the break (its grad_fn is an autograd object the graph cannot hand out), and a later
call with inputs that require grad sees that."""

import torch
from breaks_harness import compare

import loom


def history_checks(x):
    y = x * 2
    with torch.no_grad():
        z = x * 3
    return y + 1, y.grad_fn is None, z.grad_fn is None, x.grad_fn is None, x.detach().grad_fn


def test_grad_fn_of_tensors_without_grad_is_none_in_the_graph():
    stats = compare(history_checks, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_inputs_that_require_grad_see_their_history():
    loom.reset()
    compiled = loom.compile(history_checks, backend="eager")
    plain = torch.arange(3.0)
    leaf = torch.arange(3.0, requires_grad=True)
    assert compiled(plain)[1:4] == (True, True, True)
    assert compiled(leaf)[1:4] == (False, True, True)
    assert compiled(leaf * 2)[1:4] == (False, True, False)
    assert compiled(plain)[1:4] == (True, True, True)
