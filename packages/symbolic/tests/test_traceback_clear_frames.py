"""``traceback.clear_frames`` of a traceback the trace made: ``unittest``'s ``assertRaises`` context calls it
when it leaves, so ``with self.assertRaises(E):`` around a raise made the whole frame run uncompiled (a graph
break at WITH_EXCEPT_START, where the function cannot be split). The traceback lists only frames of inlined
calls, which have no frames once compiled: clearing them is modelled as clearing nothing."""

import traceback
import unittest

import pytest
import torch
from harness import check

from loom_symbolic import translate_function


def assert_raises_around_a_raise(x):
    y = x + 1
    with unittest.TestCase().assertRaises(KeyError) as cm:
        {}["k"]
    return y * 2, cm.exception.args, type(cm.exception).__name__


def assert_raises_in_a_callee(x):
    def fail(n):
        raise ValueError(n)

    y = x.sin()
    with unittest.TestCase().assertRaises(ValueError) as cm:
        fail(3)
    return y + 1, cm.exception.args


def clear_frames_of_caught_traceback(x):
    try:
        raise RuntimeError("r")
    except RuntimeError as e:
        traceback.clear_frames(e.__traceback__)
        caught = e
    return x - 1, caught.args, traceback.clear_frames(None)


def assert_raises_not_raised(x):
    y = x * 3
    try:
        with unittest.TestCase().assertRaises(ValueError):
            pass
    except AssertionError as e:
        return y + 1, str(e)
    return y


def assert_raises_other_type_passes_through(x):
    y = x.cos()
    try:
        with unittest.TestCase().assertRaises(KeyError):
            raise IndexError("idx")
    except IndexError as e:
        return y + 1, e.args
    return y


@pytest.mark.parametrize("fn", [assert_raises_around_a_raise, assert_raises_in_a_callee,
                                clear_frames_of_caught_traceback, assert_raises_not_raised,
                                assert_raises_other_type_passes_through])
def test_matches_eager_in_one_graph(fn):
    check(fn, torch.ones(3))


def test_compiled_assert_raises_counts():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")

    loom.reset()
    out = loom.compile(assert_raises_around_a_raise, backend="eager")(torch.ones(3))
    expected = assert_raises_around_a_raise(torch.ones(3))
    assert torch.equal(out[0], expected[0]) and out[1:] == expected[1:]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0)


def test_a_real_traceback_argument_stays_a_break():
    """A traceback from outside the trace lists real frames: clearing them is left to Python."""

    def clear_outside(x, tb):
        traceback.clear_frames(tb)
        return x + 1

    try:
        raise ValueError
    except ValueError as e:
        tb = e.__traceback__
    translation = translate_function(clear_outside, torch.ones(3), tb)
    assert any("clear_frames" in b.reason.what for b in translation.breaks), translation.dump()
