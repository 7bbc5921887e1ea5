"""An ``out=`` op that resizes a graph input (PyTorch's test_misc ``test_out_variants_with_resizing_on_graph_inputs``):
recorded with a ``resize_`` of its own, so every backend gives eager's values and sizes (AOTAutograd replayed the
new values onto the old size, a RuntimeError at run time)."""

from __future__ import annotations

import warnings

import pytest
import torch

import loom


def _cosh_into(x, y):
    return torch.cosh(x, out=y) + 1, y.shape


def _sort_into(x, values, indices):
    torch.sort(x, out=(values, indices))
    return x + 1, values, indices


CASES = [
    (_cosh_into, lambda: (torch.arange(3.0), torch.rand(4))),  # shrinks (a warning: it had elements)
    (_cosh_into, lambda: (torch.arange(3.0), torch.empty(0))),  # grows
    (_sort_into, lambda: (torch.tensor([3.0, 1.0, 2.0]), torch.empty(0), torch.empty(0, dtype=torch.long))),
]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn,make", CASES)
def test_out_resizes_are_eager_s(backend, fn, make):
    loom.reset()
    got_args, eager_args = make(), make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "An output with one or more elements was resized"
        got = loom.compile(fn, backend=backend, options={"strict": True})(*got_args)
        expected = fn(*eager_args)
    for g, e in zip(got, expected):
        assert torch.equal(g, e) if isinstance(e, torch.Tensor) else g == e
    for g, e in zip(got_args, eager_args):
        assert torch.equal(g, e)
    assert loom.stats()["graph_breaks"] == 0
