"""Graph inputs that are views of one storage, with dynamic sizes, written in place: AOTAutograd gives
them a synthetic base and regenerates each view from its symbolic sizes, which the ``aot_eager`` and
``c`` backends now hand it as SymInt inputs (as torch.compile's graphs carry them). Under
``options={"strict": True}`` a backend failure raises instead of running the frame uncompiled, so these
frames compile; answers and the written base equal eager's, and they recompile no more than under the
``eager`` backend (once for the dynamic size)."""

from __future__ import annotations

import pytest
import torch

import loom

BACKENDS = ("aot_eager", "c")
SIZES = (5, 7, 9)  # the second makes the frame dynamic; the third reuses that entry


def _scale_first_return_second(a, b):
    a.mul_(10)
    return b


def _scale_both_overlapping(a, b):
    a.mul_(10)
    b.add_(1)
    return a + 1, b * 2


def _views_across_a_break(x):
    y = x * 2
    a, b = y[:3], y[1:]
    loom.graph_break()
    a.mul_(10)
    return b, y


def _run_sizes(fn, backend, make_args):
    loom.reset()
    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    for n in SIZES:
        expected_args, args = make_args(n), make_args(n)
        expected = fn(*expected_args)
        got = compiled(*args)
        torch.testing.assert_close(got, expected)
        torch.testing.assert_close(args, expected_args)  # the written base, through the views
    return loom.stats()


def _two_views(n):
    y = torch.arange(float(n))
    return y[:3], y[1:]


@pytest.mark.parametrize("backend", BACKENDS)
def test_aliased_views_of_dynamic_size_written_in_place_compile(backend):
    stats = _run_sizes(_scale_first_return_second, backend, _two_views)
    assert stats["recompiles"] == 1 and stats["graphs"] == 2
    assert stats["recompiles"] == _run_sizes(_scale_first_return_second, "eager", _two_views)["recompiles"]


@pytest.mark.parametrize("backend", BACKENDS)
def test_overlapping_views_both_written_of_dynamic_size(backend):
    def views(n):
        y = torch.arange(float(n))
        return y[: n - 2], y[1:]

    stats = _run_sizes(_scale_both_overlapping, backend, views)
    assert stats["recompiles"] == _run_sizes(_scale_both_overlapping, "eager", views)["recompiles"] == 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_views_made_before_a_break_written_in_the_resume_function(backend):
    def base(n):
        return (torch.arange(float(n)),)

    stats = _run_sizes(_views_across_a_break, backend, base)
    assert stats["graph_breaks"] >= 1
    # the frame and its resume function recompile as under ``eager`` (the resume function's ``y``
    # turns dynamic one size later than ``b``)
    assert stats["recompiles"] == _run_sizes(_views_across_a_break, "eager", base)["recompiles"]


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
def test_aliased_views_with_grad_written_in_place_keep_eager_answers():
    # A training graph's synthetic base is the views' ``_base``, which loom may fakeify static: these
    # inputs are not lifted, and the frame still runs uncompiled with a warning, as before.
    def fn(a, b):
        a.mul_(3)
        return (b * b).sum()

    loom.reset()
    compiled = loom.compile(fn, backend="aot_eager")
    for n in SIZES:
        results = []
        for run in (fn, compiled):
            w = torch.arange(float(n), requires_grad=True)
            y = w * 1
            out = run(y[:3], y[1:])
            out.backward()
            results.append((out.detach(), y.detach(), w.grad))
        torch.testing.assert_close(results[1], results[0])
