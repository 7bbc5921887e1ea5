"""``.grad`` of a tensor computed in the graph: None where it does not require grad (nothing but a ``.grad =``
store in the trace could have given it one), instead of a graph break; a tensor that is an input under another
name (an in-place op's result) still reads the input's gradient (Paddle's test_18_tensor_method)."""

import pytest
import torch
from harness import check


def computed_without_grad(x):
    a = x.reshape(3, 1).expand(3, 2).to(torch.float64)
    b = a * 2
    b.grad = torch.ones(3, 2, dtype=torch.float64)  # stored in the trace: read back
    return a.grad is None, b.grad, a + 1


def in_place_result_of_input(x):
    y = x.mul_(2)
    return y.grad, y + 1


def _with_grad():
    t = torch.arange(3.0)
    t.grad = torch.full((3,), 5.0)
    return t


@pytest.mark.parametrize(("fn", "make"), [(computed_without_grad, lambda: torch.arange(3.0)),
                                          (in_place_result_of_input, _with_grad)])
def test_grad_reads_match_eager(fn, make):
    check(fn, make())
