"""``obj.name = v`` / ``del obj.name`` through a descriptor class of the user's whose ``__get__`` answers
something else on the class (``Cls.name`` gives 7, not the descriptor): the descriptor is guarded where it
sits, in the class's ``__dict__``. Before, it was guarded as ``Cls.name``, which a read of ``Cls.name`` in the
same frame guarded as an int: contradictory guards, an internal error, and the frame ran uncompiled."""

import torch

import loom


class _Guarded:
    def __get__(self, obj, objtype=None):
        return 7 if obj is None else 3

    def __set__(self, obj, value):
        raise AttributeError("read only")

    def __delete__(self, obj):
        raise AttributeError("kept")


class _Holder:
    v = _Guarded()


def store_then_class_read(x):
    h = _Holder()
    caught = 0
    try:
        h.v = 4
    except AttributeError:
        caught += 1
    try:
        del h.v
    except AttributeError:
        caught += 10
    return x + h.v + _Holder.v + caught


def test_store_and_delete_through_descriptor_guard_the_class_dict():
    x = torch.arange(3.0)
    expected = store_then_class_read(x)
    loom.reset()
    report = loom.explain(store_then_class_read)(x)
    assert report.graph_count == 1 and report.graph_break_count == 0, report.breaks
    loom.reset()
    compiled = loom.compile(store_then_class_read, backend="eager", options={"strict": True})
    assert torch.equal(compiled(x), expected)
    assert torch.equal(compiled(x), expected)
    stats = loom.stats()
    assert stats["frames_compiled"] == 1 and stats["recompiles"] == 0
