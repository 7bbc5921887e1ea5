"""One grad-mode or ``inference_mode`` object entered again inside its own ``with`` block (issue 29).

Eager's managers keep their state on the object: ``no_grad``/``enable_grad`` keep one ``prev`` that every
``__enter__`` overwrites (the outer block's exit restores what the inner block found), and ``inference_mode``
keeps one guard that the second ``__enter__`` replaces (inference mode stays on after the outer block).
loom matches eager: a break inside the inner block re-enters the trace's one manager object for both
blocks, and a re-entered ``inference_mode`` runs the whole frame as ordinary Python, one break.

Each run happens on a thread of its own: the grad and inference modes are thread-local, and eager leaves
inference mode switched on here, which must not leak into the other tests.
"""

from __future__ import annotations

import io
import threading

import pytest
import torch

import loom

_SINK = io.StringIO()


def _state():
    return torch.is_grad_enabled(), torch.is_inference_mode_enabled()


def inference_mode_twice(x, w):
    m = torch.inference_mode()
    with m:
        a = x * 2
        with m:
            b = a + 1
            inner = _state()
        c = b * 3
        middle = _state()
    return a, b, c, c.is_inference(), inner, middle, _state()


def inference_mode_twice_break_inside(x, w):
    m = torch.inference_mode()
    with m:
        with m:
            print("break", file=_SINK)
            b = x * 2
        c = x * w
        middle = _state()
    return b, c, c.is_inference(), middle, _state()


def no_grad_twice_break_inside(x, w):
    m = torch.no_grad()
    with m:
        a = x * w
        with m:
            print("break", file=_SINK)
            b = a * w
        c = x * w
        middle = _state()
    return a, b, c, middle, _state()


def enable_grad_twice_in_no_grad_break_inside(x, w):
    m = torch.enable_grad()
    with torch.no_grad():
        with m:
            a = x * w
            with m:
                print("break", file=_SINK)
                b = a * w
            c = x * w
        d = x * w
    return a, b, c, d, _state()


def no_grad_twice(x, w):
    m = torch.no_grad()
    with m:
        with m:
            a = x * w
        b = x * w
    return a, b, _state()


def _on_a_thread(fn, *args):
    out = []
    thread = threading.Thread(target=lambda: out.append(fn(*args)))
    thread.start()
    thread.join()
    return out[0]


def _same(actual, expected):
    assert len(actual) == len(expected)
    for a, e in zip(actual, expected, strict=True):
        if isinstance(e, torch.Tensor):
            assert (a.requires_grad, a.is_inference()) == (e.requires_grad, e.is_inference())
            torch.testing.assert_close(a, e)
        else:
            assert a == e


@pytest.mark.parametrize(("fn", "graphs", "breaks"), [
    (inference_mode_twice, 0, 1),
    (inference_mode_twice_break_inside, 0, 1),
    (no_grad_twice_break_inside, 2, 1),
    (enable_grad_twice_in_no_grad_break_inside, 2, 1),
    (no_grad_twice, 1, 0),
])
def test_a_manager_entered_twice_leaves_the_modes_as_eager(fn, graphs, breaks):
    x, w = torch.arange(3.0), torch.ones(3, requires_grad=True)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    expected = _on_a_thread(fn, x, w)
    for _ in range(2):  # the second call runs what the first compiled
        _same(_on_a_thread(compiled, x, w), expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
    assert _state() == (True, False)


def test_a_reentered_inference_mode_names_the_construct():
    loom.reset()
    report = _on_a_thread(loom.explain(inference_mode_twice), torch.arange(3.0), None)
    assert len(report.graphs) == 0 and len(report.breaks) == 1
    text = str(report.breaks[0])
    assert "torch.inference_mode object entered again" in text and "inference_mode_twice" in text
