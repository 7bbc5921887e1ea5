"""Two inputs viewing one storage, one of them updated in place: a functionalizing backend compiles the update
for where the views sit in the storage. Views at offsets 0 and 1 overlap as views at 0 and 0 do, so the entry
compiled for one pair must not serve the other (eager: ``a.add_(1); a + b`` reads the updated overlap)."""

from __future__ import annotations

import pytest
import torch

import loom


def update_then_add(a, b):
    a.add_(1)
    return a + b


def _pairs():
    same = torch.ones(4)
    shifted = torch.ones(3)
    apart = torch.ones(4)
    return [(same[:2], same[:2]), (shifted[:2], shifted[1:]), (apart[:2], apart[2:]), (torch.ones(2), torch.ones(2))]


@pytest.mark.parametrize("backend", ["eager", "aot_eager", None])
def test_views_of_one_storage_at_other_offsets_recompile(backend):
    loom.reset()
    compiled = loom.compile(update_then_add) if backend is None else loom.compile(update_then_add, backend=backend)
    for (a, b), (a2, b2) in zip(_pairs(), _pairs()):
        expected = update_then_add(a, b)
        got = compiled(a2, b2)
        assert torch.equal(got, expected), (got, expected)
        assert torch.equal(a2, a) and torch.equal(b2, b)
