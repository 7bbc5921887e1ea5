"""A view of a graph's intermediate that lives on across a graph break stays a view of it: a write through
it after the break shows in its base, with static and with symbolic sizes, on each backend (with the ``c``
backend and a size marked dynamic the view used to come back as a copy, so the write was lost)."""

from __future__ import annotations

import pytest
import torch

import loom


def _write_through_a_slice(x):
    y = x.clone()
    a = y[:-1]
    loom.graph_break()
    a.add_(1)
    return y


def _write_through_one_of_two_windows(x):
    y = x * 2
    a, b = y[:3], y[1:]
    loom.graph_break()
    a.mul_(10)
    return b


@pytest.mark.parametrize("dynamic", [False, True], ids=["static", "symbolic"])
@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn", [_write_through_a_slice, _write_through_one_of_two_windows])
def test_writes_after_a_break_reach_the_base(fn, backend, dynamic):
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    for n in (5, 7):
        x = torch.arange(float(n))
        if dynamic:
            loom.mark_dynamic(x, 0)
        torch.testing.assert_close(compiled(x), fn(x))
