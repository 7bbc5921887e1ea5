"""A closure made by an inlined function escapes the compiled frame (stored in an argument, returned): the
cells of the inlined frame it closes over are gone once the trace ends, so the rewritten code makes new ones
holding their final contents, one per traced cell, so that closures sharing a cell still share it. Before,
rebuilding such a closure was a graph break."""

import torch

import loom


def _closure_over(i):
    def g(y):
        return y + i
    return g


def _counter_pair(start):
    def read(t):
        return t * start

    def bump():
        nonlocal start
        start += 10
    return read, bump


def _compiled(fn, *args):
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    return result, loom.stats()


def _store_closure(x, box):
    g = _closure_over(box["i"] + 1)
    box["g"] = g
    return g(x) * 2


def test_closure_of_inlined_function_stored_in_argument():
    expected_box, box = {"i": 1}, {"i": 1}
    expected = _store_closure(torch.ones(3), expected_box)
    result, stats = _compiled(_store_closure, torch.ones(3), box)
    assert torch.equal(result, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)
    assert box["g"](1) == expected_box["g"](1) == 3


def _shared_cell(x, box):
    read, bump = _counter_pair(2)
    bump()
    box["read"], box["bump"] = read, bump
    return read(x), _closure_over(5)


def test_closures_sharing_an_inlined_cell_still_share_it():
    expected_box, box = {}, {}
    expected = _shared_cell(torch.ones(3), expected_box)
    result, stats = _compiled(_shared_cell, torch.ones(3), box)
    assert torch.equal(result[0], expected[0]) and result[1](1) == expected[1](1) == 6
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)
    box["bump"]()  # the real cell behind read and bump is one: the bump is seen by read
    expected_box["bump"]()
    assert box["read"](1) == expected_box["read"](1) == 22
