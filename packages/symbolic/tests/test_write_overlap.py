"""write_overlap: its decisions against the memory two views really share, and against ATen's own check."""

from __future__ import annotations

import itertools
import random

import pytest
import torch

from loom_symbolic import write_overlap
from loom_symbolic.errors import Unsupported
from loom_symbolic.fake_mode import LoomFakeTensorMode


def _addresses(t: torch.Tensor) -> set[int]:
    """The storage elements ``t`` covers."""
    index = torch.arange(t.untyped_storage().nbytes() // t.element_size())
    return set(index.as_strided(t.shape, t.stride(), t.storage_offset()).flatten().tolist())


def _views(base: torch.Tensor, rng: random.Random, count: int) -> list[torch.Tensor]:
    """Random slices (with steps) of ``base``, some transposed."""
    views = []
    for _ in range(count):
        view = base
        for dim in range(base.dim()):
            size = base.shape[dim]
            start = rng.randrange(size)
            stop = rng.randrange(start + 1, size + 1)
            step = rng.choice([1, 1, 2, 3])
            view = view.narrow(dim, start, stop - start)[(slice(None),) * dim + (slice(None, None, step),)]
        if base.dim() > 1 and rng.random() < 0.2:
            view = view.transpose(0, 1)
        views.append(view)
    return views


@pytest.mark.parametrize("shape", [(12,), (4, 6), (3, 4, 5)])
def test_no_overlap_answered_only_for_disjoint_memory_and_exactly_for_slices(shape):
    rng = random.Random(sum(shape))
    base = torch.zeros(shape)
    views = _views(base, rng, 40)
    for a, b in itertools.product(views, views):
        status = write_overlap._overlap(a, b)
        shared = _addresses(a) & _addresses(b)
        if status == "none":
            assert not shared, (a.shape, a.stride(), a.storage_offset(), b.shape, b.stride(), b.storage_offset())
        if not shared and a.stride() == b.stride():
            assert status == "none", (a.shape, a.stride(), a.storage_offset(), b.shape, b.stride(), b.storage_offset())
        if status == "full":
            assert _addresses(a) == _addresses(b) and a.stride() == b.stride()


@pytest.mark.parametrize("shape", [(12,), (4, 6)])
def test_dense_views_break_where_aten_raises(shape):
    """On views ATen decides (both dense), a copy_ raises in eager exactly where write_overlap breaks."""
    rng = random.Random(7)
    base = torch.arange(float(torch.Size(shape).numel())).view(shape)
    views = [v for v in _views(base, rng, 60) if write_overlap._dense(tuple(v.shape), v.stride())]
    for a, b in itertools.product(views, views):
        if a.shape != b.shape:
            continue
        try:
            a.clone().copy_(b)  # the shapes agree: only overlap can make eager's copy_ refuse below
            a.copy_(b)
            raised = False
        except RuntimeError as exc:
            assert "unsupported operation" in str(exc)
            raised = True
        status = write_overlap._overlap(a, b)
        assert raised == (status == "partial"), (a.stride(), a.storage_offset(), b.stride(), b.storage_offset())


def test_internal_overlap():
    x = torch.zeros(12)
    assert write_overlap._has_internal_overlap(x[:1].expand(3))
    assert write_overlap._has_internal_overlap(x.as_strided((3, 3), (1, 1)))
    assert not write_overlap._has_internal_overlap(x.view(3, 4)[:, 1:3])
    assert not write_overlap._has_internal_overlap(x.view(3, 4).t())
    assert not write_overlap._has_internal_overlap(x[:1].expand(1))


def test_the_fake_mode_breaks_on_an_overlapping_write_only():
    mode = LoomFakeTensorMode()
    y = mode.from_tensor(torch.zeros(8))
    with mode:
        y[:3].copy_(y[3:6])
        y.add_(y)
        y[:3] += 1
        with pytest.raises(Unsupported, match=r"aten\.copy_ writing a tensor that overlaps"):
            y[:3].copy_(y[1:4])
        with pytest.raises(Unsupported, match=r"aten\.add_ writing a tensor whose elements share memory"):
            y[:1].expand(3).add_(1)
        y.resize_(8)
        y.set_(y[2:])  # metadata writes read no element


def test_a_foreach_op_compares_its_lists_by_storage():
    mode = LoomFakeTensorMode()
    y, z = mode.from_tensor(torch.zeros(9)), mode.from_tensor(torch.zeros(9))
    with mode:
        torch._foreach_add_([y[:3], y[3:6]], [z[:3], y[6:]])
        with pytest.raises(Unsupported, match="writing a tensor that overlaps"):
            torch._foreach_add_([y[:3], z[:3]], [z[3:6], y[1:4]])


def test_a_foreach_op_writing_one_memory_location_twice_breaks():
    mode = LoomFakeTensorMode()
    y, z = mode.from_tensor(torch.zeros(9)), mode.from_tensor(torch.zeros(9))
    with mode:
        torch._foreach_add_([y[:3], y[3:6]], 1.0)
        torch._foreach_add_([y, z], [y, z])  # each reads itself: elementwise
        for written in ([y, y], [y, y[2:5]], [y[:3], z, y[2:4]]):
            with pytest.raises(Unsupported, match="one memory location through two tensors of its list"):
                torch._foreach_mul_(written, 2.0)
        with pytest.raises(Unsupported, match="writing a tensor that overlaps"):
            torch._foreach_add_([y[:3], z[:3]], [z[:3], y[:3]])  # the first written tensor is read by the second


def test_a_scalar_value_tensor_may_be_an_element_of_the_written_tensor():
    mode = LoomFakeTensorMode()
    y = mode.from_tensor(torch.zeros(6))
    with mode:
        y.fill_(y[0])
        y.masked_fill_(y > 0, y[1])
        y.index_fill_(0, torch.tensor([2]), y[3])
        with pytest.raises(Unsupported, match="overlaps"):
            y[1:].copy_(y[:5])  # other reads still checked
