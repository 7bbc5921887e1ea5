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


class _WindowsOntoAnUnreturnedValue(torch.nn.Module):
    def forward(self, x):
        c = x.clone()
        return (c[:2], c[1:])


class _WindowsOntoTheInput(torch.nn.Module):
    def forward(self, x):
        return (x[:2], x[1:])


def _assert_windows_share_writes(actual, expected):
    for got, want in zip(actual, expected):
        torch.testing.assert_close(got, want)
    assert actual[0].untyped_storage().data_ptr() == actual[1].untyped_storage().data_ptr()
    actual[0].add_(100)
    expected[0].add_(100)
    torch.testing.assert_close(actual[1], expected[1])  # the overlapping element shows the write


@pytest.mark.parametrize("module", [_WindowsOntoAnUnreturnedValue, _WindowsOntoTheInput])
def test_outputs_that_are_windows_onto_one_value_overlap_as_in_eager(module):
    """Outputs sharing a storage that none of them spans are windows onto a value the graph does not return
    (or onto an input): they stay windows onto one buffer, so a write through one shows in the other (each
    used to get a copy)."""
    gm = torch.fx.symbolic_trace(module())
    compiled = loom_backends.get("c")(gm, [torch.arange(3.0)])
    _assert_windows_share_writes(compiled(torch.arange(3.0)), gm(torch.arange(3.0)))


@pytest.mark.parametrize("module", [_CloneAndSlice, _WindowsOntoAnUnreturnedValue])
def test_output_views_over_symbolic_sizes_stay_views(module, dynamic):
    """Whether an output spans its storage is decided on the size expressions (``s0 * 4`` bytes for
    ``s0`` floats), with no guard: with symbolic sizes the answer used to be "unknown", so ``c[:2]`` was
    returned as a copy of ``c`` and a later write through it did not show in ``c``."""
    gm, example = dynamic.graph(module(), [torch.arange(3.0)], {0: {0}})
    compiled = loom_backends.get("c")(gm, example)
    for n in (3, 6):
        _assert_windows_share_writes(compiled(torch.arange(float(n))), module()(torch.arange(float(n))))
    assert [g.compiled.fallback_reason for g in compiled.graphs] == [None]


class _WindowsOntoAViewedInput(torch.nn.Module):
    def forward(self, x):
        return (x[:1], x[1:])


def test_windows_onto_no_spanning_value_run_through_aten():
    """Two outputs sharing a storage that no value of the graph spans (the input is itself a window) cannot
    be remade as windows onto one buffer: the graph runs through ATen, which keeps eager's aliasing."""
    gm = torch.fx.symbolic_trace(_WindowsOntoAViewedInput())
    base = torch.arange(4.0)
    compiled = loom_backends.get("c")(gm, [base[1:]])
    actual = compiled(base[1:])
    assert actual[0].untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    assert "no value of the graph spans" in compiled.graphs[0].compiled.fallback_reason
