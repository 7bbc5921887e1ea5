"""``torch.inference_mode`` regions (issue 29): entered and left in the graph (both autograd flags, as eager
sets them), nested with grad mode and with itself, as a decorator made outside or inside the trace, and
with a break inside the block costing one break: the resume function enters a fresh manager as a region
of its own graph. Results, ``is_inference()``, ``requires_grad`` and the modes the program sees are eager's."""

from __future__ import annotations

import io

import pytest
import torch

import loom

_SINK = io.StringIO()
_W = torch.ones(3, requires_grad=True)


def _state():
    return torch.is_inference_mode_enabled(), torch.is_grad_enabled()


def block(x):
    with torch.inference_mode():
        y = x * _W
        inside = _state()
    return y, inside, _state(), x * _W


def nested(x):
    with torch.inference_mode():
        a = x * 2
        with torch.inference_mode(False):
            b = x * _W
            middle = _state()
        with torch.enable_grad():
            c = x + 1
            grad_inside = _state()
    return a, b, c, middle, grad_inside, _state()


def false_inside_no_grad(x):
    with torch.no_grad():
        with torch.inference_mode(False):
            y = x * _W
            inside = _state()
        after = _state()
    return y, inside, after


@torch.inference_mode()
def _tripled(t):
    return t * 3, _state()


def decorator_made_outside(x):
    return _tripled(x), _state()


def decorator_made_inside(x):
    return torch.inference_mode()(lambda t: (t * _W, _state()))(x), _state()


def bare_decorator_inside(x):
    @torch.inference_mode
    def doubled(t):
        return t * 2, _state()

    return doubled(x), _state()


def break_inside(x):
    with torch.inference_mode():
        y = x * 2
        print("break", file=_SINK)
        z = y + _W
        inside = _state()
    return z, inside, _state(), x * _W


def break_inside_false_in_no_grad(x):
    with torch.no_grad():
        with torch.inference_mode(False):
            a = x * _W
            print("break", file=_SINK)
            b = a * 2
            inner = _state()
        c = x * _W
    return b, c, inner, _state()


def _flat(value):
    if isinstance(value, tuple):
        for item in value:
            yield from _flat(item)
    else:
        yield value


def _run(fn, graphs, breaks):
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):
        actual, expected = compiled(x), fn(x)
        assert _state() == (False, True)
        for a, e in zip(_flat(actual), _flat(expected), strict=True):
            if isinstance(e, torch.Tensor):
                assert (a.requires_grad, a.is_inference()) == (e.requires_grad, e.is_inference())
                torch.testing.assert_close(a, e)
            else:
                assert a == e
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (graphs, breaks, 0), stats


@pytest.mark.parametrize("fn", [block, nested, false_inside_no_grad, decorator_made_outside, decorator_made_inside,
                                bare_decorator_inside])
def test_inference_mode_is_a_region_of_the_graph(fn):
    _run(fn, 1, 0)


@pytest.mark.parametrize("fn", [break_inside, break_inside_false_in_no_grad])
def test_a_break_inside_inference_mode_is_one_break_and_the_modes_are_eagers(fn):
    _run(fn, 2, 1)


def test_inference_mode_is_entered_by_the_graph():
    loom.reset()
    report = loom.explain(block)(torch.arange(3.0))
    code = report.frames[0].graphs[0].graph_module.code
    assert "_enter_inference_mode" in code and "_exit_inference_mode" in code
