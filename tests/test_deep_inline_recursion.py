"""A Python recursion traced by inlining, as PyTorch's test_repros recursion-limit tests write it
(``fn(x, n - 1) + 1``): 60 levels are one graph, as under torch.compile (before, inlining stopped at 48 and
the frame broke); a recursion deeper than half of Python's recursion limit allows in translator frames breaks
there, with the right answer, instead of failing the whole trace with a RecursionError."""

from __future__ import annotations

import torch

import loom


def _rec(x, n):
    if n == 0:
        return x
    return _rec(x, n - 1) + 1


def sixty_deep(x):
    return _rec(x, 60)


def three_hundred_deep(x):
    return _rec(x, 300)


def _run(fn, x):
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(x)
    return result, loom.stats()


def test_sixty_levels_are_one_graph():
    x = torch.arange(3.0)
    result, stats = _run(sixty_deep, x)
    torch.testing.assert_close(result, x + 60)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_deeper_recursion_breaks_with_the_right_answer():
    x = torch.arange(3.0)
    result, stats = _run(three_hundred_deep, x)
    torch.testing.assert_close(result, x + 300)
    assert stats["graph_breaks"] >= 1, stats
