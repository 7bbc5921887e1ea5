"""``torch.cond`` whose branches return tensors of different sizes (``cat([x, x])`` against ``x.sin()``): as under
torch.compile, one graph whose cond results have unbacked sizes (torch's ``_merge_output``), eager's values for
either predicate under every backend (AOTAutograd gets a ShapeEnv for it; the kernel compilers run such graphs'
ATen graphs as they are), with no backend failure; an op needing the merged size breaks and still gives eager's
values. Branches differing in rank or dtype still raise eager's error."""

from __future__ import annotations

import warnings

import pytest
import torch

import loom

BACKENDS = ["eager", "aot_eager", "c"]


def returned(x):
    return torch.cond(x.sum() > 0, lambda: torch.cat([x, x]), lambda: x.sin())


def reduced(x):
    out = torch.cond(x.sum() > 0, lambda t: (t * 2)[:2], lambda t: t.cos(), (x,))
    return out.sum() * 2, out.shape[0]


def used_elementwise(x):
    return torch.cond(x.sum() > 0, lambda: torch.cat([x, x]), lambda: x.sin()) + 1


INPUTS = [torch.arange(3.0), -torch.arange(3.0) - 1]


def check(fn, backend):
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        for x in INPUTS:
            want, got = fn(x), compiled(x)
            for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
                torch.testing.assert_close(torch.as_tensor(g), torch.as_tensor(w))
    assert not [w for w in caught if "failed on graph" in str(w.message)]


@pytest.mark.parametrize("backend", BACKENDS)
def test_cond_results_of_different_sizes_returned_are_one_graph(backend):
    report = loom.explain(returned, backend="eager")(INPUTS[0])
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    check(returned, backend)


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [reduced, used_elementwise])
def test_cond_results_of_different_sizes_used_keep_eagers_values(fn, backend):
    check(fn, backend)


def test_cond_branches_of_different_ranks_raise_as_eager():
    def fn(x):
        return torch.cond(x.sum() > 0, lambda: (x * 2).reshape(3, 1), lambda: x.sin())
    with pytest.raises(Exception) as want:
        fn(INPUTS[0])
    loom.reset()
    with pytest.raises(type(want.value)):
        loom.compile(fn, backend="eager")(INPUTS[0])
