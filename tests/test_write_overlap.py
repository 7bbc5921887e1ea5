"""In-place and ``out=`` writes over memory the op reads: loom gives eager's behaviour on every backend.

Eager raises "unsupported operation: some elements of the input tensor and the written-to tensor refer to a
single memory location" (or runs a kernel whose result depends on its order) where a functional graph would
quietly read the old values: each such op is a graph break, so it runs as the program runs. Writes that do not
overlap, or overlap exactly (``y.add_(y)``, ``y[:3] += 1``), stay in the graph.
"""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare

import loom

BACKENDS = ["eager", "aot_eager", "c"]


def copy_partial(x):
    y = x.clone()
    y[:3].copy_(y[1:4])
    return y


def add_out_partial(x):
    y = x.clone()
    torch.add(y[:3], 1, out=y[1:4])
    return y


def add_inplace_partial(x):
    y = x.clone()
    y[1:4].add_(y[:3])
    return y * 2


def mul_inplace_partial(x):
    y = x.clone()
    y[1:4].mul_(y[:3])
    return y


def setitem_partial(x):
    y = x.clone()
    y[1:4] = y[:3]
    return y


def index_put_partial(x):
    y = x.clone()
    y.index_put_((torch.tensor([1, 2, 3]),), y[:3])
    return y


def cat_out_partial(x):
    y = x.clone()
    torch.cat([y[:2], y[2:4]], out=y[1:5])
    return y


def copy_transposed_self(x):
    y = x.clone().view(2, 2, 2)
    y.copy_(y.transpose(1, 2))
    return y


def expanded_write(x):
    y = x.clone()[:1].expand(3)
    y.add_(1)
    return y


def index_select_out_is_input(x):
    y = x.clone()
    torch.index_select(y, 0, torch.tensor([1, 0, 2, 3, 4, 5, 6, 7]), out=y)
    return y


def caught_overlap(x):
    y = x.clone()
    try:
        y[:3].copy_(y[1:4])
    except RuntimeError as e:
        return y + 1, str(e)[:22]
    return y, ""


RAISING = [copy_partial, add_out_partial, add_inplace_partial, mul_inplace_partial, setitem_partial,
           index_put_partial, cat_out_partial, copy_transposed_self, expanded_write, index_select_out_is_input]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", RAISING, ids=lambda f: f.__name__)
def test_overlapping_write_raises_eagers_error(fn, backend):
    with pytest.raises(RuntimeError, match="unsupported operation"):
        fn(torch.arange(8.0))
    compare(fn, torch.arange(8.0), backend=backend)


@pytest.mark.parametrize("backend", BACKENDS)
def test_overlap_error_caught_by_the_program(backend):
    compare(caught_overlap, torch.arange(8.0), backend=backend)


# -- writes eager runs: a kernel over memory it reads but not partially ---------------------------------------
def smear_forward(x):
    y = x.clone().view(2, 4)
    y[:, 1:4].copy_(y[:, :3])  # not dense: ATen does not check, its copy walks forward over what it wrote
    return y


def smear_add(x):
    y = x.clone().view(2, 4)
    y[:, 1:4].add_(y[:, :3])
    return y


def smear_backward(x):
    y = x.clone().view(2, 4)
    y[:, :3].copy_(y[:, 1:4])
    return y


def foreach_one_tensor_twice(x):
    y = x.clone()
    torch._foreach_add_([y, y], [torch.ones(8), torch.ones(8)])  # eager adds twice, one after the other
    return y


def foreach_scalar_one_tensor_twice(x):
    y = x.clone()
    torch._foreach_mul_([y, y], 2.0)
    return y


def foreach_overlapping_views(x):
    y = x.clone()
    torch._foreach_mul_([y, y[:4]], 2.0)  # y[:4] is written twice
    return y


OVERLAPPING_RUNS = [smear_forward, smear_add, smear_backward, foreach_one_tensor_twice,
                    foreach_scalar_one_tensor_twice, foreach_overlapping_views]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", OVERLAPPING_RUNS, ids=lambda f: f.__name__)
def test_write_over_a_strided_overlap_gives_eagers_result(fn, backend):
    compare(fn, torch.arange(8.0), backend=backend)


# -- writes that stay in the graph ------------------------------------------------------------------------------
def add_self(x):
    y = x.clone()
    y.add_(y)
    return y


def copy_disjoint(x):
    y = x.clone()
    y[:3].copy_(y[3:6])
    return y


def add_out_is_input(x):
    y = x.clone()
    torch.add(y, 1, out=y)
    return y


def slice_iadd(x):
    y = x.clone()
    y[:3] += 1
    y[2:5] += y[5:8]
    return y


def interleaved(x):
    y = x.clone()
    y[::2].add_(y[1::2])
    return y


def column_blocks(x):
    y = x.clone().view(2, 4)
    y[:, :2].copy_(y[:, 2:4])
    return y


def column_iadd(x):
    y = x.clone().view(2, 4)
    y[:, 1:3] += 1
    return y


def fill_from_own_element(x):
    y = x.clone()
    y.fill_(y[2])  # the 0-dim value is read as a number before anything is written
    return y


def masked_fill_from_own_element(x):
    y = x.clone()
    y.masked_fill_(y > 3, y[1])
    y.index_fill_(0, torch.tensor([0, 7]), y[5])
    return y


def foreach_list_onto_itself(x):
    ys = [x.clone(), x.clone() + 1]
    torch._foreach_add_(ys, ys)  # each tensor reads only itself, element by element
    return ys


CLEAN = [add_self, copy_disjoint, add_out_is_input, slice_iadd, interleaved, column_blocks, column_iadd,
         fill_from_own_element, masked_fill_from_own_element, foreach_list_onto_itself]


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", CLEAN, ids=lambda f: f.__name__)
def test_write_without_overlap_stays_in_one_graph(fn, backend):
    stats = compare(fn, torch.arange(8.0), backend=backend)
    assert stats["graph_breaks"] == 0 and stats["graphs"] == 1, stats


def caught_expanded_write(x):
    y = x.clone()[:1].expand(3)
    try:
        y.add_(1)
    except RuntimeError:
        return x + 1
    return y


def test_break_names_the_op_and_the_line():
    report = str(loom.explain(caught_overlap)(torch.arange(8.0)))
    assert "aten.copy_ writing a tensor that overlaps a tensor it reads" in report, report
    assert "y[:3].copy_(y[1:4])" in report, report


def test_expanded_write_break_names_it():
    report = str(loom.explain(caught_expanded_write)(torch.arange(8.0)))
    assert "aten.add_ writing a tensor whose elements share memory" in report, report
    assert "y.add_(1)" in report, report


def copy_between_arguments(a, b):
    a.copy_(b)
    return a + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_arguments_overlapping_after_a_compile_for_distinct_ones(backend):
    """The storage guard recompiles for views of one tensor passed in; that translation breaks at the copy_."""
    compiled = loom.compile(copy_between_arguments, backend=backend)
    assert torch.equal(compiled(torch.arange(8.0)[:3], torch.arange(8.0)[1:4]), torch.tensor([2.0, 3.0, 4.0]))
    x = torch.arange(8.0)
    with pytest.raises(RuntimeError, match="unsupported operation: some elements of the input tensor"):
        compiled(x[:3], x[1:4])
