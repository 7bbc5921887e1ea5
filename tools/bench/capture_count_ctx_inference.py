"""``torch.inference_mode`` for ``capture_count.py`` (``--only ctx``): nested with grad mode and with itself,
a break inside the block, a stored manager, a decorator applied in the trace, an exception through the
block. Each returns the state it saw (``is_inference_mode_enabled``, ``is_grad_enabled``, ``is_inference``)."""

from __future__ import annotations

import io

import torch

_SINK = io.StringIO()


def _weight():
    return (torch.ones(3, requires_grad=True),)


def _state():
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled()


def c_inference_mode_break_inside(x, w):
    with torch.inference_mode():
        y = x * 2
        print("break", file=_SINK)
        z = y + w
        inside = _state()
    return z, z.is_inference(), inside, _state(), (x * w).requires_grad


c_inference_mode_break_inside.extra_args = _weight


def c_inference_mode_nested(x, w):
    with torch.inference_mode():
        a = x * 2
        with torch.inference_mode(False):
            b = x * w
            middle = _state()
        with torch.enable_grad():
            c = x + 1
            grad_inside = _state()
    return a, b, c, b.requires_grad, c.is_inference(), middle, grad_inside, _state()


c_inference_mode_nested.extra_args = _weight


def c_inference_mode_in_no_grad(x, w):
    with torch.no_grad():
        with torch.inference_mode(False):
            y = x * w
            inside = _state()
        after = _state()
    return y, y.requires_grad, inside, after


c_inference_mode_in_no_grad.extra_args = _weight


def c_inference_mode_stored(x):
    mode = torch.inference_mode()
    with mode:
        y = x.sin()
    return y, y.is_inference(), _state()


def c_inference_mode_decorated_in_trace(x):
    def double(t):
        return t * 2, _state()

    return torch.inference_mode()(double)(x), _state()


def c_inference_mode_exception_through(x):
    try:
        with torch.inference_mode():
            y = x * 2
            raise ValueError("inside")
    except ValueError:
        y = x + 1
    return y, y.is_inference(), _state()


def c_inference_mode_nested_breaks(x, w):
    with torch.no_grad():
        with torch.inference_mode(False):
            a = x * w
            print("break", file=_SINK)
            b = a * 2
            inner = _state()
        c = x * w
    return b, b.requires_grad, c.requires_grad, inner, _state()


c_inference_mode_nested_breaks.extra_args = _weight


def c_inference_mode_object_reentered(x):
    # eager: the second __enter__ replaces the object's one guard; dropping the first restores the mode
    # from before the outer block (inference mode on) for the inner block
    m = torch.inference_mode(False)
    with torch.inference_mode():
        with m:
            a = x * 2
            with m:
                b = x + 1
                inner = _state()
            after_inner = _state()
    return a, b, a.is_inference(), b.is_inference(), inner, after_inner, _state()


def c_no_grad_object_reentered_break(x, w):
    m = torch.no_grad()
    with m:
        a = x * w
        with m:
            print("break", file=_SINK)
            b = a * w
        c = x * w
    return a, b, c, c.requires_grad, _state()


c_no_grad_object_reentered_break.extra_args = _weight


def c_enable_grad_object_reentered_break(x, w):
    m = torch.enable_grad()
    with torch.no_grad():
        with m:
            with m:
                print("break", file=_SINK)
                b = x * w
            c = x * w
        d = x * w
    return b.requires_grad, c.requires_grad, d.requires_grad, _state()


c_enable_grad_object_reentered_break.extra_args = _weight


CONSTRUCTS = [
    c_inference_mode_break_inside, c_inference_mode_nested, c_inference_mode_in_no_grad, c_inference_mode_stored,
    c_inference_mode_decorated_in_trace, c_inference_mode_exception_through, c_inference_mode_nested_breaks,
    c_inference_mode_object_reentered, c_no_grad_object_reentered_break, c_enable_grad_object_reentered_break,
]
