"""Tensor metadata the tensor guard does not compare, folded by a trace: ``is_leaf`` of a tensor that requires
grad and ``storage_offset()`` of a view. Passed a non-leaf, or a view starting elsewhere in its storage, the next
call must not be served the entry traced for the other (``TensorMatch`` sees them alike)."""

from __future__ import annotations

import pytest
import torch

import loom


def leaf_branch(x):
    if x.is_leaf:
        return x * 2
    return x * 3


def offsets(x):
    return x + 1, x.storage_offset(), x[1:].storage_offset()


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_is_leaf_is_guarded(backend):
    loom.reset()
    compiled = loom.compile(leaf_branch, backend=backend)
    leaf = torch.ones(2, requires_grad=True)
    for x in [leaf, leaf * 1, leaf, leaf[:1]]:
        assert torch.equal(compiled(x).detach(), leaf_branch(x).detach())


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_storage_offset_is_guarded_for_the_input_and_views_of_it(backend):
    loom.reset()
    compiled = loom.compile(offsets, backend=backend)
    base = torch.arange(8.0)
    for x in [base[:2], base[1:3], base[4:6], base[:2]]:
        got, expected = compiled(x), offsets(x)
        assert torch.equal(got[0], expected[0]) and got[1:] == expected[1:]


def test_a_view_made_in_the_frame_guards_the_input_it_views():
    loom.reset()

    def window(x):
        return x.view(-1)[2:].storage_offset(), x * 2

    compiled = loom.compile(window, backend="eager")
    base = torch.arange(12.0).reshape(3, 4)
    for x in [base[:2], base[1:], base[:2]]:
        assert compiled(x)[0] == window(x)[0]
