"""Through ``loom.compile`` (backends eager and aot_eager): a self-referencing object made in the trace and
live at a graph break is rebuilt after the graph (it sent the rebuild into a RecursionError, an internal
error that ran the frame uncompiled with a warning), and reading a list subclass from the frame whose
``__getitem__``/``__iter__``/``__len__`` call ``super()`` is one graph with eager's values."""

from __future__ import annotations

import warnings

import pytest
import torch
from breaks_harness import compare, show


class Node:
    pass


def dict_holding_itself(x):
    d = {}
    d["self"] = d
    d["x"] = x + 1
    show("break")
    return d["self"]["x"] * 2, d["self"] is d


def object_pointing_at_itself(x):
    o = Node()
    o.me = o
    o.v = x + 3
    show("break")
    return o.me.v * 3, o.me is o


class Stored(list):
    def __getitem__(self, i):
        return super().__getitem__(i) * 2

    def __iter__(self):
        return super().__iter__()

    def __len__(self):
        return super().__len__() + 1


def reads_a_list_subclass(x, items):
    total = x
    for item in items:
        total = total + item
    return total + items[1] * len(items)


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("fn", [dict_holding_itself, object_pointing_at_itself])
def test_a_cycle_live_at_a_break_compiles_without_an_internal_error(fn, backend):
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # loom's "internal error ... runs uncompiled" warning fails the test
        stats = compare(fn, torch.arange(3.0), backend=backend)
    assert (stats["graphs"], stats["graph_breaks"]) == (2, 1), stats


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_reading_a_list_subclass_with_super_overrides_is_one_graph(backend):
    stats = compare(reads_a_list_subclass, torch.ones(3), Stored([torch.ones(3), torch.ones(3) * 5]), backend=backend)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
