"""Generic context managers that switch grad mode themselves, for ``capture_count.py`` (``--only ctx``): a class
whose ``__enter__``/``__exit__`` call ``torch._C._set_grad_enabled``, a ``@contextmanager`` generator that
yields the switch inside ``try``/``finally``, nested, with a break inside or in ``__enter__``, and returned."""

from __future__ import annotations

import contextlib
import io

import torch

_SINK = io.StringIO()


class _GradSwitch:
    def __init__(self, mode):
        self.prev = torch.is_grad_enabled()
        self.mode = mode

    def __enter__(self):
        torch._C._set_grad_enabled(self.mode)

    def __exit__(self, *exc):
        torch._C._set_grad_enabled(self.prev)


@contextlib.contextmanager
def _grad_switch(mode):
    prev = torch.is_grad_enabled()
    try:
        yield torch._C._set_grad_enabled(mode)
    finally:
        torch._C._set_grad_enabled(prev)


class _BreakingSwitch(_GradSwitch):
    def __enter__(self):
        print("break", file=_SINK)
        super().__enter__()


def _weight():
    return (torch.ones(3, requires_grad=True),)


def _body(x, w):
    y = x * w
    if torch.is_grad_enabled():
        y = y * 2
    return torch.relu(y)


def c_generic_class_switch(x, w):
    with _GradSwitch(False):
        y = _body(x, w)
    return y - 1, y.requires_grad, torch.is_grad_enabled()


def c_generic_generator_switch(x, w):
    with _grad_switch(False):
        y = _body(x, w)
    return y - 1, y.requires_grad, torch.is_grad_enabled()


def c_generic_nested_switches(x, w):
    with _grad_switch(True):
        y = _body(x, w)
        with _GradSwitch(False):
            z = _body(y, w) * 1.5
    return z, y.requires_grad, z.requires_grad, torch.is_grad_enabled()


def c_generic_switch_break_inside(x, w):
    with _GradSwitch(False):
        y = x * w
        print("break", file=_SINK)
        y = torch.relu(y)
    return y - 1, y.requires_grad, torch.is_grad_enabled()


def c_generic_generator_break_inside(x, w):
    with _grad_switch(False):
        y = x * w
        print("break", file=_SINK)
        y = torch.relu(y)
    return y - 1, y.requires_grad, torch.is_grad_enabled()


def c_generic_breaking_enter(x, w):
    with _BreakingSwitch(False):
        y = _body(x, w)
    return y, y.requires_grad, torch.is_grad_enabled()


def c_generic_switch_returned(x):
    manager = _GradSwitch(False)
    with manager:
        y = x + 1
    return y, manager.mode, manager.prev


for _fn in (c_generic_class_switch, c_generic_generator_switch, c_generic_nested_switches,
            c_generic_switch_break_inside, c_generic_generator_break_inside, c_generic_breaking_enter):
    _fn.extra_args = _weight

CONSTRUCTS = [
    c_generic_class_switch, c_generic_generator_switch, c_generic_nested_switches, c_generic_switch_break_inside,
    c_generic_generator_break_inside, c_generic_breaking_enter, c_generic_switch_returned,
]
