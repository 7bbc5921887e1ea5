"""A closure made by an inlined function escapes the compiled frame (stored in an argument, returned): the
cells of the inlined frame it closes over are gone once the trace ends, so the rewritten code makes new ones
holding their final contents, one per traced cell, so that closures sharing a cell still share it. Before,
rebuilding such a closure was a graph break. A function made by an inlined function of another module is
rebuilt with that module's globals (MAKE_FUNCTION would give it the frame's): before, calling it raised
NameError, a wrong answer."""

import contextlib

import foreign_function_makers
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


def _foreign(x):
    return foreign_function_makers.make_plain(), foreign_function_makers.make_closure(3), x + 1


def test_function_made_by_another_module_keeps_its_globals():
    (plain, closure, _), stats = _compiled(_foreign, torch.ones(2))
    assert plain(1) == 7 and closure(1) == 10
    assert plain.__module__ == closure.__module__ == "foreign_function_makers"
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def _context_manager_made_here(x):
    def steps(t):
        yield t + 1

    return contextlib.contextmanager(steps), x * 2


def test_contextmanager_decorated_in_the_frame_escapes_working():
    (manager, _), stats = _compiled(_context_manager_made_here, torch.ones(2))
    with manager(torch.ones(2)) as value:
        assert value.tolist() == [2.0, 2.0]
    assert stats["graph_breaks"] == 0, stats
