"""An index out of a tensor's bounds raises eager's IndexError in the trace (the fake run's shape check is eager's):
a handler catches it, and a class iterated by ``__getitem__`` over a tensor ends there, as CPython's sequence
protocol does. It was a graph break of no exception type (Paddle's test_iter-style user sequences)."""

import pytest
import torch
from harness import check


class Rows:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        return self.t[i]


def caught_by_handler(x):
    y = x + 1
    try:
        y[5]
    except IndexError as e:
        return y * 2, str(e), e.args


def sequence_protocol_over_tensor(x):
    y = x + 1
    return list(iter(Rows(y))), [v * 2 for v in Rows(y.reshape(3, 1))], y * 2


@pytest.mark.parametrize("fn", [caught_by_handler, sequence_protocol_over_tensor])
def test_index_errors_match_eager(fn):
    check(fn, torch.arange(3.0))
