"""A slot of a real object that was never set (``getattr(obj, "a", None)`` on a ``__slots__`` class): the read
raises AttributeError for real, which the trace used to let escape (an internal error, the frame uncompiled). It
is a graph break now, so the handler (``getattr``'s default, ``hasattr``) runs as Python and setting the slot
later is seen."""

from __future__ import annotations

import torch

import loom


class Slotted:
    __slots__ = ("a", "b")


def test_an_unset_slot_read_breaks_and_setting_it_is_seen():
    obj = Slotted()
    obj.b = 1

    def fn(x):
        found = getattr(obj, "a", None)
        return x + (1 if found is None else found) + obj.b, hasattr(obj, "a")

    loom.reset()
    compiled = loom.compile(fn, backend="eager", options={"strict": True})
    x = torch.zeros(2)
    out, present = compiled(x)
    torch.testing.assert_close(out, x + 2)
    assert present is False
    obj.a = 5
    out, present = compiled(x)
    torch.testing.assert_close(out, x + 6)
    assert present is True
    del obj.a
    out, present = compiled(x)
    torch.testing.assert_close(out, x + 2)
    assert present is False
    assert loom.stats()["graph_breaks"] >= 1
