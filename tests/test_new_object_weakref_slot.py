"""``obj.__weakref__`` of an object made while tracing: None, or the one reference ``weakref.ref(obj)`` made
(CPython keeps it in that slot). It broke the graph (C-level attributes of new objects were not modelled),
so ``if foo.__weakref__:`` split the function."""

import weakref

import torch

import loom


class _Plain:
    pass


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _branch_on_weakref(x):
    obj = _Plain()
    if obj.__weakref__:
        return torch.cos(x)
    return torch.sin(x)


def _after_a_reference(x):
    obj = _Plain()
    before = obj.__weakref__
    ref = weakref.ref(obj)
    return x + 1, before is None, obj.__weakref__ is ref, ref() is obj


def test_weakref_slot_of_a_new_object_is_none():
    x = torch.arange(3.0)
    report = _explain(_branch_on_weakref, x)
    assert torch.equal(report.result, torch.sin(x))
    assert report.graph_count == 1 and report.break_count == 0


def test_weakref_slot_holds_the_reference_made():
    x = torch.arange(3.0)
    report = _explain(_after_a_reference, x)
    assert report.result[1:] == (True, True, True)
    assert report.graph_count == 1 and report.break_count == 0
