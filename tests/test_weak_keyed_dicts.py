"""A ``weakref.WeakKeyDictionary`` read from the frame (PyTorch's test_dicts.py, test_weakref_dict): membership,
``d[obj]`` and ``d.get(obj, default)`` for objects from the frame are answered in one graph, and the entry is
reused only while the dict maps those objects the same way (adding, changing or removing an entry recompiles,
with eager's answers)."""

from __future__ import annotations

import weakref

import torch

import loom

OWNER = torch.nn.Linear(2, 2)
OTHER = torch.nn.Linear(2, 2)
STATES = weakref.WeakKeyDictionary({OWNER: 2})


def reads(x):
    if OWNER in STATES:
        x = torch.sin(x)
    if OTHER in STATES:
        x = torch.cos(x)
    return x * STATES[OWNER] + STATES.get(OTHER, 7)


def lookup(x, module):
    return x * STATES.get(module, 3)


def test_weak_key_dictionary_reads_follow_the_dict():
    loom.reset()
    compiled, looked_up = loom.compile(reads, backend="eager"), loom.compile(lookup, backend="eager")
    x = torch.arange(3.0)
    try:
        for change in (
            lambda: STATES.__setitem__(OTHER, 4),
            lambda: STATES.__setitem__(OWNER, 9),
            lambda: STATES.__delitem__(OTHER),
            lambda: None,
        ):
            assert torch.equal(compiled(x), reads(x))
            for module in (OWNER, OTHER, torch.nn.Linear(1, 1)):
                assert torch.equal(looked_up(x, module), lookup(x, module))
            change()
        assert loom.stats()["graph_breaks"] == 0
    finally:
        STATES.clear()
        STATES[OWNER] = 2


def test_weak_key_dictionary_in_one_graph():
    loom.reset()
    report = loom.explain(reads, backend="eager")(torch.arange(3.0))
    assert (report.graph_count, report.break_count) == (1, 0)
