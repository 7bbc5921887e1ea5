"""One construct, one graph break: a frame that captures no graph and stops at a construct whose break its
caller already counted (reached through the call) adds none to ``loom.stats()["graph_breaks"]``, as
torch.compile counts it once, whether the rest of the frame runs as it is or is resumed and captures
nothing (a helper that only hands a value back). A frame that does capture a graph around the same
construct is split by it, and counts its own break, as torch.compile's."""

from __future__ import annotations

import io

import torch

import loom

_SINK = io.StringIO()


def _yields_then_prints(t):
    yield t.sin()
    print("inside", file=_SINK)
    yield t.cos()


def _two_from(t):
    gen = _yields_then_prints(t)
    return next(gen), next(gen)


def generator_breaking_in_a_helper(x):
    a, b = _two_from(x)
    return a + b


def _prints_then_computes(t):
    print("helper", file=_SINK)
    return t * 2


def helper_split_by_a_print(x):
    return _prints_then_computes(x) + 1


def _hands_back(ctx):
    print("break", file=_SINK)
    return ctx


def grad_ctx_through_a_breaking_helper(x):
    x = x + 1
    ctx = _hands_back(torch.set_grad_enabled(False))
    with ctx:
        y = x * 2
    return y


def _stats(fn, x):
    loom.reset()
    out = loom.compile(fn, backend="eager")(x)
    torch.testing.assert_close(out, fn(x))
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def test_generator_break_in_a_helper_counts_once():
    assert _stats(generator_breaking_in_a_helper, torch.ones(3)) == (1, 1)


def test_helper_split_by_the_construct_counts_its_own_break():
    assert _stats(helper_split_by_a_print, torch.ones(3)) == (2, 2)


def test_helper_repeating_its_callers_break_counts_once():
    assert _stats(grad_ctx_through_a_breaking_helper, torch.ones(3)) == (2, 1)
    assert torch.is_grad_enabled()
