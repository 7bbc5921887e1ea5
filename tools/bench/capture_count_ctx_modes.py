"""TorchFunctionMode subclasses inside the compiled function, for ``capture_count.py`` (``--only ctx``): entered
and left, nested, made outside and handed in, counting calls, replacing an op, with a break inside, the stack
queried, popped and pushed again, left pushed, and an exception through the block (modelled on the kinds of
code PyTorch's dynamo ``test_modes.py`` exercises; the runner checks the mode stack each leaves)."""

from __future__ import annotations

import io

import torch
import torch.nn.functional as F
from torch.overrides import BaseTorchFunctionMode, TorchFunctionMode

_SINK = io.StringIO()


class _Counter(TorchFunctionMode):
    def __init__(self):
        self.count = 0

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.count += 1
        return func(*args, **(kwargs or {}))


class _AddGivesZeros(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.add:
            return torch.zeros_like(args[0])
        return super().__torch_function__(func, types, args, kwargs)


class _MulGivesOnes(BaseTorchFunctionMode):
    def __torch_function__(self, func, types, args=(), kwargs=None):
        if func is torch.mul:
            return torch.ones_like(args[0])
        return super().__torch_function__(func, types, args, kwargs)


class _Names(TorchFunctionMode):
    def __init__(self):
        self.names = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.names.append(func.__name__)
        return func(*args, **(kwargs or {}))


def c_mode_counts_calls(x):
    with _Counter() as mode:
        y = torch.sin(x) + x.cos() * 2
        z = F.relu(y).sum()
    return z, mode.count


def c_mode_replaces_op(x):
    with _AddGivesZeros():
        y = torch.add(x, 3)
        w = torch.sub(x, 1)
    return torch.add(y, w)


def c_modes_nested(x):
    with _AddGivesZeros(), _MulGivesOnes():
        y = torch.mul(x, 3) + torch.add(x, 3)
    return y


def c_mode_made_outside(x, mode):
    with mode:
        y = x.exp() - 1
    return y, list(mode.names)


c_mode_made_outside.extra_args = lambda: (_Names(),)


def c_mode_break_inside(x):
    with _Counter() as mode:
        y = x * 2
        print("break", file=_SINK)
        y = y + 1
    return y, mode.count


def c_mode_stack_queries(x):
    before = torch._C._len_torch_function_stack()
    with _Names() as mode:
        inside = torch._C._len_torch_function_stack()
        same = torch.overrides._get_current_function_mode() is mode
        y = x + inside
    return y, before, inside, same, mode.names


def c_mode_pop_and_push(x):
    with _Counter() as mode:
        popped = torch._C._pop_torch_function_stack()
        y = x * 3  # no mode sees this
        torch._C._push_on_torch_function_stack(popped)
        y = y + 1
    return y, mode.count, popped is mode


def c_mode_made_and_mutated(x):
    mode = _Counter()
    mode.extra = 2
    return x + mode.extra, mode.count


def c_mode_exception_through(x):
    try:
        with _Counter() as mode:
            y = x + 1
            raise ValueError("inside")
    except ValueError:
        y = x - 1
    return y, mode.count, torch._C._len_torch_function_stack()


def c_mode_attributes_and_methods(x):
    with _Names() as mode:
        n = x.shape[0] + x.dim()
        parts = x.split(1)
        y = torch.cat([parts[0], x.T]) * n
    return y, mode.names


def c_mode_factory(x):
    with _Names() as mode:
        y = torch.ones(3) + torch.arange(3.0)
    return y + x, mode.names


def c_mode_python_protocols(x):
    with _Names() as mode:
        n = len(x)
        total = 0
        for item in x[:2]:
            total = total + item
        y = x ** 2 + abs(-x)
    return n, total, y, mode.names


CONSTRUCTS = [c_mode_python_protocols,

    c_mode_counts_calls, c_mode_replaces_op, c_modes_nested, c_mode_made_outside, c_mode_break_inside,
    c_mode_stack_queries, c_mode_pop_and_push, c_mode_made_and_mutated, c_mode_exception_through,
    c_mode_attributes_and_methods, c_mode_factory,
]
