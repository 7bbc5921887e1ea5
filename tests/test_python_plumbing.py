"""Python plumbing model code relies on (issue 20): id() of objects reached from the frame."""

from __future__ import annotations

import torch
from breaks_harness import compare

import loom


class Config:
    pass


CONFIG = Config()
MODULE = torch.nn.Linear(2, 2)
SEEN: set[int] = set()


def ids_of_frame_objects(x):
    first_time = id(CONFIG) not in SEEN
    return x + (1 if first_time else 0), id(MODULE) == id(MODULE), id(CONFIG) == id(CONFIG)


def test_id_of_an_object_from_the_frame_is_a_guarded_constant():
    stats = compare(ids_of_frame_objects, torch.ones(2))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats


def memo_by_id(x, key):
    table = {id(CONFIG): 2.0}
    return x * table.get(id(key), 1.0)


def test_another_object_fails_the_identity_guard():
    global CONFIG
    compiled = loom.compile(memo_by_id, backend="eager")
    x = torch.ones(2)
    assert torch.equal(compiled(x, CONFIG), x * 2)
    other = Config()
    assert torch.equal(compiled(x, other), x * 1)
    old, CONFIG = CONFIG, other
    try:
        assert torch.equal(compiled(x, other), x * 2), "CONFIG is another object now: its id is another constant"
    finally:
        CONFIG = old
