"""A frozenset from the frame holding the user's objects (``frozenset([handler])``): its members are the
trace's one variable per object. It was folded as a constant, so a member taken out of it and the same object
reached by name were two things: a store through one was not seen through the other (a wrong answer), and
``member is obj`` was False. Members of sets and frozensets from the frame are also guarded objects now, so
reading their attributes no longer breaks the graph."""

import torch

import loom


class _Box:
    pass


_BOX = _Box()
_BOX.count = 0
_FROZEN = frozenset([_BOX])
_PLAIN = {_BOX}
_CLASSES = frozenset([int, _Box])


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _store_then_read_member(x):
    first = list(_FROZEN)[0]  # noqa: RUF015 (list() of the set, as the program does)
    _BOX.count += 1
    return x + first.count, first is _BOX


def _store_through_member(x):
    for box in _FROZEN:
        box.count += 2
    return x * _BOX.count


def _read_set_member(x):
    for box in _PLAIN:
        x = x + box.count
    return x


def _class_membership(x):
    return x + 1, type(_BOX) in _CLASSES, float in _CLASSES


def test_store_by_name_is_seen_through_the_frozenset_member():
    _BOX.count = 0
    x = torch.ones(2)
    try:
        report = _explain(_store_then_read_member, x)
        assert _BOX.count == 1
    finally:
        _BOX.count = 0
    assert torch.equal(report.result[0], x + 1) and report.result[1] is True
    assert report.graph_count == 1 and report.break_count == 0


def test_store_through_the_member_is_seen_by_name():
    _BOX.count = 1
    x = torch.ones(2)
    try:
        report = _explain(_store_through_member, x)
        assert _BOX.count == 3
    finally:
        _BOX.count = 0
    assert torch.equal(report.result, x * 3)
    assert report.graph_count == 1 and report.break_count == 0


def test_set_member_attribute_is_read_in_graph_and_guarded():
    loom.reset()
    compiled = loom.compile(_read_set_member, backend="eager")
    x = torch.ones(2)
    _BOX.count = 2
    try:
        assert torch.equal(compiled(x), x + 2)
        _BOX.count = 5
        assert torch.equal(compiled(x), x + 5)
    finally:
        _BOX.count = 0
    report = _explain(_read_set_member, x)
    assert report.graph_count == 1 and report.break_count == 0


def test_frozenset_of_classes_answers_membership():
    x = torch.ones(2)
    report = _explain(_class_membership, x)
    assert report.result[1:] == (True, False)
    assert report.graph_count == 1 and report.break_count == 0
