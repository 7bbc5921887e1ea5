"""Context managers around breaks in called functions and managers made before a break, for ``capture_count.py``
(``--only ctx``): a callee whose ``no_grad``/autocast/saved-tensors-hooks block breaks and returns from inside,
a grad-mode decorator applied under the inverse mode, a manager made before a break and entered after it, and
a generic manager nested in itself with a break in the inner block (the kinds of code PyTorch's dynamo
``test_ctx_manager.py`` exercises)."""

from __future__ import annotations

import contextlib
import io

import torch

_SINK = io.StringIO()


def _sin_without_grad(z):
    with torch.no_grad():
        print("break", file=_SINK)
        return torch.sin(z)


def c_break_in_callee_no_grad_return(x, w):
    a = x * w
    z = _sin_without_grad(x)
    return a, z, z.requires_grad, torch.is_grad_enabled()


c_break_in_callee_no_grad_return.extra_args = lambda: (torch.ones(3, requires_grad=True),)


def _autocast_mm(a, b):
    with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
        z = torch.mm(a, b)
        print("break", file=_SINK)
        return torch.sin(z)


def c_break_in_callee_autocast_return(x):
    m = x.reshape(3, 1) * x.reshape(1, 3)
    z = torch.mm(m, m)
    return z + _autocast_mm(m, m), torch.is_autocast_enabled("cpu")


def c_saved_tensors_hooks_break(x):
    with torch.autograd.graph.disable_saved_tensors_hooks("not here"):
        y = x + 1
        print("break", file=_SINK)
        return y * 2


def c_grad_decorator_under_inverse(x, w):
    def inner(a):
        return (a * w).sin()

    with torch.no_grad():
        decorated = torch.enable_grad()(inner)
        inside = torch.is_grad_enabled()
    with torch.no_grad():
        y = decorated(x)
    return y, y.requires_grad, inside, torch.is_grad_enabled()


c_grad_decorator_under_inverse.extra_args = lambda: (torch.ones(3, requires_grad=True),)


def c_set_grad_enabled_decorator_under_inverse(x, w):
    with torch.set_grad_enabled(True):
        @torch.set_grad_enabled(False)
        def inner(a):
            return a * w

        inside = torch.is_grad_enabled()
    y = inner(x)
    return y, y.requires_grad, inside, torch.is_grad_enabled()


c_set_grad_enabled_decorator_under_inverse.extra_args = lambda: (torch.ones(3, requires_grad=True),)


def c_inactive_ctx_break_then_enter(x, w):
    x = x + 1
    ctx = torch.set_grad_enabled(False)
    print("break", file=_SINK)
    with ctx:
        y = x * w
    return y, y.requires_grad, torch.is_grad_enabled()


c_inactive_ctx_break_then_enter.extra_args = lambda: (torch.ones(3, requires_grad=True),)


def _three():
    print("break", file=_SINK)
    return [0, 1, 2]


def c_nullcontext_made_before_callee_break(x):
    x = x + 1
    ctx = contextlib.nullcontext()
    items = _three()
    with ctx:
        x = x + items[1]
    return x


class _Switch:
    def __init__(self, mode):
        self.mode = mode

    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch._C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        torch._C._set_grad_enabled(self.prev)


def c_generic_nested_with_break_and_queries(x):
    with _Switch(True):
        x = x + 1
        if torch.is_grad_enabled():
            x = x * 2
        with _Switch(False):
            if torch.is_grad_enabled():
                x = x - 3
            print("break", file=_SINK)
            x = x * 1.5
        x = torch.relu(x)
    return x - 1, torch.is_grad_enabled()


def c_ctx_argument_and_break_in_call(x, w):
    def gn(a, ctx, k, dummy):
        with ctx:
            return a * w * k

    x = x + 1
    y = gn(x, torch.set_grad_enabled(False), 2, print("break", file=_SINK))
    return y, y.requires_grad, torch.is_grad_enabled()


c_ctx_argument_and_break_in_call.extra_args = lambda: (torch.ones(3, requires_grad=True),)


CONSTRUCTS = [
    c_break_in_callee_no_grad_return, c_break_in_callee_autocast_return, c_saved_tensors_hooks_break,
    c_grad_decorator_under_inverse, c_set_grad_enabled_decorator_under_inverse, c_inactive_ctx_break_then_enter,
    c_nullcontext_made_before_callee_break, c_generic_nested_with_break_and_queries, c_ctx_argument_and_break_in_call,
]
