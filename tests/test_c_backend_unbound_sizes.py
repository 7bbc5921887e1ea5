"""The ``c`` backend on a graph whose sizes only the run fixes: a ``while_loop`` over a module whose parameters
require grad (its backward stacks the iterations, an unbacked count). The kernels' host code could not bind that
size (``NameError: name 's0' is not defined``, the graph refused); the backend now runs the ATen graphs as they
are: eager's values and gradients, no backend failure."""

from __future__ import annotations

import warnings

import torch
from torch._higher_order_ops.while_loop import while_loop

import loom


def _linear():
    lin = torch.nn.Linear(3, 3)
    torch.nn.init.constant_(lin.weight, 0.125)
    torch.nn.init.constant_(lin.bias, -0.25)
    return lin


LIN_GOT, LIN_WANT = _linear(), _linear()


def looping_got(x):  # reads the module as a global (its parameters are the graph's inputs)
    return while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, LIN_GOT(t)), (torch.tensor(0), x))


def looping_want(x):
    return while_loop(lambda i, t: i < 3, lambda i, t: (i + 1, LIN_WANT(t)), (torch.tensor(0), x))


def test_c_backend_runs_a_differentiated_while_loop_over_a_module():
    x = torch.arange(3.0)
    looping_want(x)  # eager's while_loop imports what it needs (torch.compile inside) before loom runs
    loom.reset()
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = loom.compile(looping_got, backend="c", options={"strict": True})(x)  # strict: a failing graph raises
        got[1].sum().backward()
    assert not [w for w in caught if "failed on graph" in str(w.message)]
    assert loom.stats()["graphs"] == 1
    want = looping_want(x)
    want[1].sum().backward()
    torch.testing.assert_close(got[1], want[1])
    assert int(got[0]) == int(want[0])
    for p, q in zip(LIN_GOT.parameters(), LIN_WANT.parameters()):
        torch.testing.assert_close(p.grad, q.grad)
