"""``torch._C.DisableTorchFunctionSubclass()`` blocks (issue 29): a region of the graph, so a tensor
subclass's ``__torch_function__`` is skipped inside it exactly as in eager (results are plain tensors),
``torch._C._is_torch_function_enabled()`` answers as eager does, and a break inside costs one break."""

from __future__ import annotations

import io

import pytest
import torch

import loom

_SINK = io.StringIO()


class Tagged(torch.Tensor):
    """A subclass: ops on it give ``Tagged`` results, except where subclass dispatch is disabled."""


def block(x):
    y = x + 1
    with torch._C.DisableTorchFunctionSubclass():
        z = y * 2
        inside = torch._C._is_torch_function_enabled()
    return z, inside, torch._C._is_torch_function_enabled(), type(z).__name__


def break_inside(x):
    y = x + 1
    with torch._C.DisableTorchFunctionSubclass():
        z = y * 2
        print("break", file=_SINK)
        w = z - 1
        inside = torch._C._is_torch_function_enabled()
    return w, inside, torch._C._is_torch_function_enabled()


@pytest.mark.parametrize(("fn", "breaks"), [(block, 0), (break_inside, 1)])
@pytest.mark.parametrize("subclass", [False, True])
def test_disable_torch_function_subclass_is_a_region_with_eagers_answers(fn, breaks, subclass):
    x = torch.arange(3.0)
    if subclass:
        x = x.as_subclass(Tagged)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        expected = fn(x)
        actual = compiled(x)
        assert torch._C._is_torch_function_enabled()
        for a, e in zip(actual, expected, strict=True):
            if isinstance(e, torch.Tensor):
                assert type(a) is type(e)
                torch.testing.assert_close(a, e)
            else:
                assert a == e
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (breaks + 1, breaks), stats
