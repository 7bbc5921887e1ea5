"""``with torch.device(d):`` blocks (issue 29): a default-device region of the graph, so factories without
``device=`` make their tensors on ``d`` as in eager, queries of the torch-function mode stack answer as
eager's, and a break inside costs one break (the resume function's graph re-enters the region)."""

from __future__ import annotations

import io

import pytest
import torch

import loom

_SINK = io.StringIO()


def block(x):
    with torch.device("meta"):
        y = torch.ones(3)
        depth = torch._C._len_torch_function_stack()
    return x + 1, y.device, depth, torch.ones(2).device, torch._C._len_torch_function_stack()


def nested(x):
    with torch.device("meta"):
        with torch.device("cpu"):
            a = torch.ones(2) + x[:2]
        b = torch.ones(2)
    return a, b.device


def passed_in(x, device=torch.device("meta")):  # noqa: B008 - a constant device, entered by the block
    with device:
        y = torch.empty(2)
    return y.device, x * 2


def break_inside(x):
    with torch.device("meta"):
        y = torch.ones(3)
        print("break", file=_SINK)
        z = torch.zeros(2)
    return x + 1, y.device, z.device, torch.ones(2).device


@pytest.mark.parametrize(("fn", "breaks"), [(block, 0), (nested, 0), (passed_in, 0), (break_inside, 1)])
def test_a_torch_device_block_is_a_region_with_eagers_devices(fn, breaks):
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    expected = fn(x)
    for _ in range(2):
        actual = compiled(x)
        assert torch.get_default_device() == torch.device("cpu")
        assert str(actual) == str(expected)  # devices, values and depths
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (breaks + 1, breaks, 0), stats
