"""Ops that check their input's values (``one_hot`` against ``num_classes``, ``gather``/``index_select``/
``take`` against the indexed size) raise in eager even when nothing reads their result, as they do under
torch.compile (whose graph keeps them). Before, loom removed such an unused node as dead code and the
compiled function returned where eager raised."""

from __future__ import annotations

import pytest
import torch
import torch.nn.functional as F

import loom


def one_hot_unused(x):
    a = torch.arange(0, 5) % 3
    F.one_hot(a, 2)
    return x + 1


def gather_unused(x):
    m = torch.stack([x, x * 2])
    m.gather(1, torch.tensor([[0, 3]]))
    return m.sum()


def index_select_unused(x):
    torch.index_select(x, 0, torch.tensor([5]))
    return x * 2


def take_unused(x):
    x.take(torch.tensor([7]))
    return x - 1


def embedding_unused(x):
    F.embedding(torch.tensor([1, 7]), torch.ones(4, 2))
    return x + 2


def in_range_unused(x):
    a = torch.arange(0, 5) % 3
    F.one_hot(a, 3)
    x.gather(0, torch.tensor([2, 0]))
    return x + 1


def _error(call, x):
    with pytest.raises((RuntimeError, IndexError)) as info:
        call(x)
    return type(info.value), str(info.value)


@pytest.mark.parametrize("fn", [one_hot_unused, gather_unused, index_select_unused, take_unused,
                                embedding_unused])
def test_unused_value_checking_op_still_raises(fn):
    x = torch.arange(3.0)
    expected = _error(fn, x)
    loom.reset()
    assert _error(loom.compile(fn, backend="eager"), x) == expected
    assert loom.stats()["graph_breaks"] == 0, loom.stats()


def test_in_range_unused_ops_run_and_answer_as_eager():
    x = torch.arange(3.0)
    loom.reset()
    torch.testing.assert_close(loom.compile(in_range_unused, backend="eager")(x), x + 1)
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
