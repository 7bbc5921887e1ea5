"""``del Cls.attr`` in a compiled function called again: the deletion is replayed on each call, a later call
finding the attribute gone raises CPython's AttributeError as eager does, and one after the program put it
back deletes it again (the guards on the class's dict see each state). Captured whole (a graph break
``deleting attribute ... not modelled`` before)."""

from __future__ import annotations

import pytest
import torch

import loom


class Base:
    y = 1


class Cls(Base):
    y = 2


def _delete_then_read(x):
    del Cls.y
    return x + Cls.y  # the base's now


def test_deleted_on_each_call_as_in_eager():
    compiled = loom.compile(_delete_then_read)
    x = torch.ones(1)
    try:
        assert torch.equal(compiled(x), x + Base.y) and "y" not in vars(Cls)
        with pytest.raises(AttributeError, match="type object 'Cls' has no attribute 'y'"):
            compiled(x)
        Cls.y = 5
        assert torch.equal(compiled(x), x + Base.y) and "y" not in vars(Cls)
        Cls.y = 2
        report = loom.explain(_delete_then_read)(x)
        assert report.graph_count == 1 and report.break_count == 0
    finally:
        Cls.y = 2
