"""``dir(obj)`` captured in the graph's frame is a constant valid while the names it read stay: a name added to
or deleted from the object or its (user) class before a later call recompiles and answers as eager does."""

from __future__ import annotations

import torch

import loom


class Base:
    b = 1


class Thing(Base):
    k = 2


def _names(x, obj):
    return x + 1, dir(obj)


def _class_names(x, cls):
    return x + 1, dir(cls)


def test_names_added_and_deleted_later_are_seen():
    obj = Thing()
    compiled = loom.compile(_names)
    x = torch.ones(2)
    assert compiled(x, obj)[1] == dir(obj)
    obj.late = 1
    Base.from_base = 2
    try:
        got = compiled(x, obj)[1]
        assert got == dir(obj) and "late" in got and "from_base" in got
    finally:
        del Base.from_base
    del obj.late
    assert compiled(x, obj)[1] == dir(obj)
    report = loom.explain(_names)(x, obj)
    assert report.graph_count == 1 and report.break_count == 0


def test_class_names_follow_the_class():
    compiled = loom.compile(_class_names)
    x = torch.ones(2)
    assert compiled(x, Thing)[1] == dir(Thing)
    Thing.added = 3
    try:
        assert compiled(x, Thing)[1] == dir(Thing) and "added" in dir(Thing)
    finally:
        del Thing.added
    assert compiled(x, Thing)[1] == dir(Thing)
    report = loom.explain(_class_names)(x, Thing)
    assert report.graph_count == 1 and report.break_count == 0
