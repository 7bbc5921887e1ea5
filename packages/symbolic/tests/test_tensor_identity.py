"""``a is b`` between tensors of the trace: an in-place op's result (``x.add_(1)``, ``torch.relu_(x)``,
``x.contiguous()`` of a contiguous ``x``, ``x.to(x.dtype)``) is the very same tensor, in fake mode as in
eager, although the graph gives it a new node; views, copies and other tensors are distinct. Compared by
example value, as dict and set keys are (``id(a) == id(b)`` follows the same rule)."""

import torch
from harness import check

X = torch.arange(3.0)
W = torch.ones(3)


def in_place_results(x, w):
    y = x.add_(1)
    v = torch.relu_(x)
    return (y is x, v is x, x.contiguous() is x, x.to(torch.float32) is x, id(v) == id(x),
            x.view(3) is x, x.clone() is x, x is w, x * 1)


def test_in_place_results_are_the_same_tensor():
    check(in_place_results, X, W)


def test_the_answer_is_eagers_not_a_constant():
    # the same code where the results are distinct: the translation must not answer True
    def distinct(x):
        y = x.add(1)
        return y is x, torch.relu(x) is x, x.t().contiguous() is x, x + 0

    check(distinct, X)
