"""Outputs of one graph that eager returns as views of one another come back from the ``c`` backend as views
of one buffer: AOTAutograd regenerates outputs that alias inputs or intermediates, but trusts the compiled
graph for an output that is a view of another output (``c = x.clone(); return c, c[:2]``), which the C
backend used to store twice, so a later write through one did not show in the other."""

from __future__ import annotations

import pytest
import torch

import loom_backends


class _CloneAndSlice(torch.nn.Module):
    def forward(self, x):
        c = x.clone()
        return (c, c[:2])


class _SliceFirst(torch.nn.Module):
    def forward(self, x):
        c = x.clone()
        return (c[1:], c)


class _SeveralViews(torch.nn.Module):
    def forward(self, x):
        c = (x * 2).reshape(3, 1)
        return (c.t(), c, c[0])


@pytest.mark.parametrize("module", [_CloneAndSlice, _SliceFirst, _SeveralViews])
def test_views_of_another_output_share_its_memory_and_see_its_writes(module):
    gm = torch.fx.symbolic_trace(module())
    x = torch.arange(3.0)
    compiled = loom_backends.get("c")(gm, [x])
    expected, actual = gm(x), compiled(x)
    for got, want in zip(actual, expected):
        torch.testing.assert_close(got, want)
        assert got.stride() == want.stride()
    storages = {t.untyped_storage().data_ptr() for t in actual}
    assert len(storages) == 1  # as in eager: one buffer behind every output
    base = max(actual, key=torch.Tensor.numel)
    base.add_(100)
    for got in actual:
        assert bool((got >= 100).all())  # each output sees the write through the base
