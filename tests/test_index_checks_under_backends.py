"""An index out of range raises under every backend as in eager, even in an op whose result nothing reads.

The capture keeps such an op (``node_effects.checks_values``) and marks it, so that a compiling backend
keeps it too (``loom_backends.graphs.with_flat_tuple_output``); the ``c`` backend checks every index it loads
against the size it indexes (``c/run_status.py``).
"""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import loom

BACKENDS = ["eager", "aot_eager", "c"]


def _unused_gather(x, index):
    m = torch.stack([x, x * 2])
    m.gather(1, index)  # eager checks the index though nothing reads the result
    return m.sum()


def _unused_embedding(x, index):
    F.embedding(index, torch.ones(4, 2))
    return x + 1


def _unused_index_select(x, index):
    torch.index_select(x, 0, index)
    return x * 3


def _used_embedding(x, index):
    return F.embedding(index, torch.ones(4, 3)) * x


CASES = [(_unused_gather, torch.tensor([[0, 1]]), torch.tensor([[0, 3]]), RuntimeError),
         (_unused_embedding, torch.tensor([1, 3]), torch.tensor([1, 7]), IndexError),
         (_unused_index_select, torch.tensor([2]), torch.tensor([5]), IndexError),
         (_used_embedding, torch.tensor([0, 3]), torch.tensor([0, -1]), IndexError)]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn, good, bad, error", CASES, ids=[c[0].__name__[1:] for c in CASES])
def test_an_index_out_of_range_raises_eagers_error_under_every_backend(fn, good, bad, error, backend):
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    torch.testing.assert_close(compiled(x, good), fn(x, good))
    with pytest.raises(error):
        fn(x, bad)
    with pytest.raises(error):
        compiled(x, bad)
    torch.testing.assert_close(compiled(x, good), fn(x, good))  # and the entry still serves good indices
