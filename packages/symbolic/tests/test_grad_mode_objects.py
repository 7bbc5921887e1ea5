"""Grad-mode managers used as objects (issue 29): ``torch.no_grad()``/``enable_grad()``/``set_grad_enabled()``
as decorators made inside the trace, called on a function, stored and entered later, and rebuilt after a
break; the mode they leave is eager's."""

import io

import torch
from harness import check, run_rewritten

from loom_symbolic import translate_function

W = torch.ones(3, requires_grad=True)
X = torch.arange(3.0)
_SINK = io.StringIO()


def decorators_made_inside(x, w):
    with torch.enable_grad():
        @torch.no_grad()
        def called(t):
            return t * w

        @torch.no_grad
        def bare(t):
            return t + w

        still = torch.is_grad_enabled()
    return called(x), bare(x), still


def set_grad_enabled_on_a_function(x, w):
    def inner(t):
        return t.sin() * w

    wrapped = torch.set_grad_enabled(False)(inner)
    unchanged = torch.is_grad_enabled()
    return wrapped(x), unchanged, x * w


def test_grad_mode_decorators_made_in_the_trace_are_one_graph():
    for fn in (decorators_made_inside, set_grad_enabled_on_a_function):
        translation = check(fn, X, W)
        assert "_set_grad_enabled" in str(translation.graphs[0].graph_module.code)
        assert torch.is_grad_enabled()


def decorated_function_escapes(x, w):
    scaled = torch.no_grad()(lambda t: t * w)
    print("break", file=_SINK)
    return scaled(x), torch.set_grad_enabled(False)(lambda t: t * w)(x), torch.is_grad_enabled()


def stored_set_grad_enabled_across_a_break(x, w):
    ctx = torch.set_grad_enabled(False)
    print("break", file=_SINK)
    with ctx:
        y = x * w
    return y, y.requires_grad, torch.is_grad_enabled()


def stored_no_grad_across_a_break(x, w):
    ctx = torch.no_grad()
    print("break", file=_SINK)
    with ctx:
        y = x * w
    return y, y.requires_grad, torch.is_grad_enabled()


def test_grad_mode_objects_rebuilt_after_a_break_keep_eager_semantics():
    for fn in (decorated_function_escapes, stored_set_grad_enabled_across_a_break, stored_no_grad_across_a_break):
        expected = fn(X, W)
        assert torch.is_grad_enabled()
        translation = translate_function(fn, X, W)
        assert len(translation.breaks) == 1 and "print" in str(translation.breaks[0]), translation.dump()
        actual = run_rewritten(fn, translation, (X, W), {})
        assert torch.is_grad_enabled(), fn.__name__  # the mode the program left is eager's
        for a, e in zip(actual, expected):
            if isinstance(e, torch.Tensor):
                torch.testing.assert_close(a, e)
                assert a.requires_grad == e.requires_grad, fn.__name__
            else:
                assert a == e, fn.__name__
