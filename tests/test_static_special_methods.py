"""Special methods written as ``staticmethod`` or ``classmethod`` (``__enter__``, ``__exit__``, ``__call__``,
``__len__``) are found on the type and bound as the descriptor binds them, for objects made in the trace and
objects handed in alike (were a break: "not a Python method"); an instance attribute of the same name is
ignored, as CPython's special-method lookup ignores it."""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare

import loom


class Kept:
    tag = 3

    @classmethod
    def __enter__(cls):
        return cls.tag

    @staticmethod
    def __exit__(kind, value, tb):
        return kind is KeyError

    @staticmethod
    def __call__(a):
        return a * 2


_KEPT = Kept()


def handed_in(x, k):
    with k as v:
        raise KeyError
    return x + v + k(4)


def read_from_globals(x):
    return handed_in(x, _KEPT)


def made_here_with_instance_override(x):
    k = Kept()
    k.__call__ = lambda a: a * 100
    with k as v:
        y = x + v
    return y + k(1)


def not_suppressed(x):
    try:
        with _KEPT:
            raise ValueError("kept")
    except ValueError:
        return x - 1


def static_len_in_frame_class(x):
    class Empty:
        @staticmethod
        def __len__():
            return 0

        @staticmethod
        def __enter__():
            return 7

        def __exit__(self, *exc):
            return False

    with Empty() as v:
        y = x + v
    return y, bool(Empty())


@pytest.mark.parametrize("fn, args", [(read_from_globals, ()), (made_here_with_instance_override, ()),
                                      (not_suppressed, ()), (static_len_in_frame_class, ())],
                         ids=["from_globals", "made_here", "not_suppressed", "frame_class"])
def test_static_and_class_special_methods_in_one_graph(fn, args):
    stats = compare(fn, torch.arange(3.0), *args)
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
    report = loom.explain(fn)(torch.arange(3.0), *args)
    assert report.graph_count == 1 and report.graph_break_count == 0, report.breaks


def test_class_attribute_read_by_classmethod_enter_is_guarded():
    loom.reset()
    compiled = loom.compile(handed_in)
    assert torch.equal(compiled(torch.arange(3.0), Kept()), torch.arange(3.0) + 11)
    Kept.tag = 10
    try:
        assert torch.equal(compiled(torch.arange(3.0), Kept()), torch.arange(3.0) + 18)
    finally:
        Kept.tag = 3
