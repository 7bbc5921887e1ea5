"""A graph break inside nested regions of different kinds (autocast around inference mode): the graph before
the break closes its open regions innermost first, as eager leaves them. Closed by kind instead, autocast's
exit ran inside inference mode, whose exit then restored the dispatch keys it had found: autocast stayed on
after the compiled call returned (and the entry's own guards failed on its frame)."""

from __future__ import annotations

import io

import pytest
import torch

import loom

_SINK = io.StringIO()


def autocast_then_inference(x):
    with torch.autocast("cpu", dtype=torch.bfloat16):
        with torch.inference_mode():
            y = x + 1
            print("a break", file=_SINK)
            z = y * 2
    return z


def no_grad_autocast_inference(x):
    with torch.no_grad():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            with torch.inference_mode():
                y = x + 1
                print("a break", file=_SINK)
                z = y * 2
    return z, torch.is_autocast_enabled("cpu")


def _state():
    return (torch.is_autocast_enabled("cpu"), torch.is_grad_enabled(), torch.is_inference_mode_enabled())


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize("program", [autocast_then_inference, no_grad_autocast_inference])
def test_state_after_a_break_in_nested_regions_is_eagers(program, backend):
    loom.reset()
    compiled = loom.compile(program, backend=backend, options={"strict": True})
    x = torch.ones(2)
    before = (False, True, False)
    assert _state() == before
    expected = program(x)
    try:
        for _ in range(2):
            got = compiled(x)
            assert _state() == before
            assert repr(got) == repr(expected)
    finally:
        torch.set_autocast_enabled("cpu", False)  # what the old code leaked must not fail the next test
