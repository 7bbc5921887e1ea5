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


class _ComplexAndItsParts(torch.nn.Module):
    def forward(self, x):
        c = torch.complex(x, x + 1)
        return (c, c.real, c.imag)


class _ComplexAndItsRealView(torch.nn.Module):
    def forward(self, x):
        c = torch.complex(x, x + 1)
        return (c, torch.view_as_real(c))


class _RealViewOfAProduct(torch.nn.Module):
    def forward(self, x):
        c = torch.view_as_complex(torch.stack([x, x + 1], dim=-1))
        return torch.view_as_real(torch.mul(c, 2j))


@pytest.mark.parametrize("module", [_ComplexAndItsParts, _ComplexAndItsRealView, _RealViewOfAProduct])
@pytest.mark.parametrize("grad", [False, True], ids=["inference", "training"])
def test_views_of_another_dtype_give_eagers_values_and_aliasing(module, grad):
    """A float view of a complex output (``c.real``, ``view_as_real``) cannot be a window counted in the
    buffer's complex elements: such a graph runs through ATen, and the inference path leaves such views as
    they are (remaking them by ``as_strided`` on their base kept the base's dtype and raised)."""
    x = torch.arange(3.0).requires_grad_(grad)
    compiled = loom_backends.get("c")(torch.fx.symbolic_trace(module()), [x])
    actual, expected = compiled(x), module()(x)
    actual, expected = (actual, expected) if isinstance(expected, tuple) else ((actual,), (expected,))
    for got, want in zip(actual, expected):
        torch.testing.assert_close(got, want)
    if len(actual) > 1:
        with torch.no_grad():
            actual[0].mul_(2)
            expected[0].mul_(2)
        for got, want in zip(actual, expected):
            torch.testing.assert_close(got, want)  # the parts see the write through the complex output
