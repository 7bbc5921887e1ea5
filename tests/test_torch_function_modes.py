"""TorchFunctionMode subclasses entered inside a compiled function (issue 29): the trace keeps its own mode
stack and inlines the mode's ``__torch_function__`` for every call eager would hand it (torch functions,
tensor methods and operators, attribute reads, factories), so the mode's Python state and the results are
eager's in one graph; the mode stack is left exactly as eager leaves it, also across a break inside the block."""

from __future__ import annotations

import io

import pytest
import torch
import torch.nn.functional as F
from torch.overrides import TorchFunctionMode

import loom

_SINK = io.StringIO()


class Log(TorchFunctionMode):
    def __init__(self):
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append(func.__name__)
        return func(*args, **(kwargs or {}))


class AddIsSub(TorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func in (torch.add, torch.Tensor.add):
            func = torch.sub
        return func(*args, **(kwargs or {}))


class Scale(TorchFunctionMode):
    def __init__(self, k):
        self.k = k

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        return out * self.k if isinstance(out, torch.Tensor) and out.is_floating_point() else out


def logged(x):
    m = Log()
    with m:
        y = torch.add(x, 1) * 2 + x.sin()
        z = x.sum()
        shape, dtype = x.shape, x.dtype
        o = torch.ones(4)
        q = 1 - F.relu(x)
    return y + o, z, q, shape, dtype, m.seen


def rewritten(x):
    with AddIsSub():
        a = torch.add(x, 1)
        b = x.add(1)
        c = x + 1
    return a, b, c


def nested(x):
    with Scale(2.0):
        with Scale(3.0):
            y = x.cos()
        n = torch._C._len_torch_function_stack()
    return y, n, torch._C._len_torch_function_stack()


def current_mode(x):
    with Log() as m:
        same = torch.overrides._get_current_function_mode() is m
        y = torch.cat([x, x])
        a, b = x.split(2)
    return y, a, b, same, m.seen


def python_protocols(x):
    with Log() as m:
        n = len(x)
        total = 0
        for item in x[:2]:
            total = total + item
        y = x ** 2 + (x @ x) + abs(-x)
    return n, total, y, m.seen


class Keywords(TorchFunctionMode):
    def __init__(self):
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append((func.__name__, kwargs is None))
        return func(*args, **(kwargs or {}))


def handed_as_eager_hands(x):
    with Keywords() as m:
        d = torch.device("cpu")
        y = torch.add(x, 1) + x.sum() + x.sum(dim=0)
    return y, d, m.seen


def transform_inside(x):
    with Log() as m:
        y = torch.func.vmap(lambda a: a * 2)(x)
    return y, m.seen


def made_outside(x, m):
    with m:
        y = F.relu(x - 1)
    return y, list(m.seen)


def left_pushed(x):
    m = Log()
    m.__enter__()
    return x + 1, m


def break_inside(x):
    m = Log()
    with m:
        y = x + 1
        print("break", file=_SINK)
        y = y * 2
    return y, m.seen, torch._C._len_torch_function_stack()


def _modes() -> list[TorchFunctionMode]:
    modes = []
    while torch._C._len_torch_function_stack():
        modes.append(torch._C._pop_torch_function_stack())
    return modes


def _same(a, b) -> bool:
    if isinstance(a, torch.Tensor):
        return a.shape == b.shape and a.dtype == b.dtype and torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    if isinstance(a, Log):
        return type(b) is Log and a.seen == b.seen
    return a == b


@pytest.mark.parametrize(("fn", "graphs", "breaks"), [
    (logged, 1, 0), (rewritten, 1, 0), (python_protocols, 1, 0), (handed_as_eager_hands, 1, 0),
    (transform_inside, 0, 1), (nested, 1, 0), (current_mode, 1, 0), (made_outside, 1, 0),
    (left_pushed, 1, 0), (break_inside, 2, 1),
])
def test_a_mode_entered_in_the_trace_sees_eagers_calls(fn, graphs, breaks):
    def arguments():
        return (torch.arange(4.0), Log()) if fn is made_outside else (torch.arange(4.0),)

    expected = fn(*arguments())
    expected_modes = [type(m) for m in _modes()]
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        actual = compiled(*arguments())
        assert [type(m) for m in _modes()] == expected_modes  # a mode left pushed stays pushed, once
        assert _same(actual, expected), (actual, expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


def test_a_mode_inside_a_device_block_runs_the_frame_as_it_is():
    def fn(x):
        with torch.device("cpu"):
            with Log() as m:
                y = torch.zeros(2) + x[:2]
        return y, m.seen

    x = torch.arange(4.0)
    expected = fn(x)
    loom.reset()
    actual = loom.compile(fn, backend="eager")(x)
    assert torch._C._len_torch_function_stack() == 0
    assert _same(actual, expected), (actual, expected)
