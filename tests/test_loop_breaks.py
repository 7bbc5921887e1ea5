"""A graph break inside a loop body compiles a bounded number of entries, whatever the loop's length.

The bound (docs/symbolic.md, "A graph break inside a loop"): the function itself; the resume function
after the break, twice (once with the loop's position as a constant, then, once the position was seen
to vary, with the break moved to the loop's ``FOR_ITER``); the loop body, a resume function entered once
per pass with the item as an argument; and the code after the loop. So at most ``MAX_ENTRIES`` frames
compiled and ``MAX_RECOMPILES`` recompiles for a loop whose body runs the same way each pass, with
eager's values, prints and side effects, and nothing compiled on a second identical call.
"""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare, show

import loom

#: Frames compiled for one loop with a break in its body (see the module docstring).
MAX_ENTRIES = 5
#: Of those, recompiles (the resume function after the break, compiled again once its position varies; a
#: ``range`` loop twice, for the middle passes and the last one at a symbolic position, in 4 frames in all:
#: ``tests/test_loop_breaks_ranges.py``).
MAX_RECOMPILES = 2

torch.manual_seed(0)
LAYERS = torch.nn.ModuleList(torch.nn.Linear(6, 6) for _ in range(100))
TENSORS = [torch.randn(6) for _ in range(100)]


def over_modules(x, n):
    for layer in LAYERS[:n]:
        x = torch.relu(layer(x))
        show("layer", tuple(x.shape))
    return x


def over_range(x, n):
    for i in range(n):
        x = x * 0.99 + i
        show("pass", i)
    return x


def over_tensors(x, ts):
    for t in ts:
        x = x + t.sin()
        show("item")
    return x


def _arguments(fn, n):
    x = torch.randn(6)
    return (x, TENSORS[:n]) if fn is over_tensors else (x, n)


def _assert_bounded(stats):
    assert stats["frames_compiled"] <= MAX_ENTRIES, stats
    assert stats["recompiles"] <= MAX_RECOMPILES, stats


@pytest.mark.parametrize("n", [32, 100])
@pytest.mark.parametrize("fn", [over_modules, over_range, over_tensors])
def test_a_break_in_every_pass_compiles_a_bounded_number_of_entries(fn, n):
    # Before: the resume function was compiled once per remaining length until the recompile limit.
    stats = compare(fn, *_arguments(fn, n))  # eager's values and prints, on a first and a second call
    _assert_bounded(stats)
    assert stats["graph_breaks"] <= MAX_ENTRIES - 1, stats


@pytest.mark.parametrize("fn", [over_modules, over_range, over_tensors])
def test_a_second_identical_call_compiles_nothing(fn):
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    args = _arguments(fn, 32)
    first = compiled(*args)
    before = loom.stats()
    second = compiled(*args)
    after = loom.stats()
    torch.testing.assert_close(second, first)
    assert (after["frames_compiled"], after["recompiles"]) == (before["frames_compiled"], before["recompiles"])
    assert after["cache_hits"] > before["cache_hits"]


def test_the_break_is_reported_at_the_users_line_and_not_once_per_pass():
    report = loom.explain(over_range)(torch.randn(6), 32)
    breaks = report.breaks
    assert 1 <= len(breaks) <= MAX_ENTRIES - 1
    for info in breaks:  # the break moved to the loop's FOR_ITER keeps the reason of the call (to show)
        assert "show" in info.what, info
        assert info.source_line.strip() == 'show("pass", i)', info


# -- the body's control flow and state stay eager's ------------------------------------------------------
def break_statement(x):
    for i, t in enumerate(TENSORS[:40]):
        x = x + t
        show(i)
        if i == 25:
            break
    return x


def return_inside(x):
    for i in range(40):
        x = x * 0.9 + i
        show(i)
        if i == 30:
            return x, "early"
    return x, "late"


def continue_inside(x):
    for i in range(40):
        if i % 3 == 0:
            continue
        x = x + i
        show(i)
    return x


def raise_inside_try(x):
    try:
        for i in range(40):
            x = x + 1
            show(i)
            if i == 33:
                raise ValueError("boom")
    except ValueError as exc:
        return x, str(exc)
    return x, None


def inside_no_grad(x):
    with torch.no_grad():
        for t in TENSORS[:40]:
            x = x * t
            show(torch.is_grad_enabled())
    return x, torch.is_grad_enabled()


def list_grown_in_the_loop(x):
    items = list(range(40))
    for v in items:
        x = x + v
        show(v)
        if v == 10:
            items.append(100)
    return x, items


def zip_of_tensors_and_range(x):
    for t, k in zip(TENSORS[:40], range(40)):
        x = x + t * k
        show(k)
    return x


@pytest.mark.parametrize("fn", [break_statement, return_inside, continue_inside, raise_inside_try, inside_no_grad,
                                list_grown_in_the_loop, zip_of_tensors_and_range])
def test_forty_passes_keep_eagers_control_flow(fn):
    x = torch.randn(6, requires_grad=fn is inside_no_grad)
    stats = compare(fn, x)
    assert stats["frames_compiled"] <= MAX_ENTRIES + 2, stats  # continue: one more branch of the body


def test_nested_loops_with_a_break_in_the_inner_body():
    def nested(x):
        for i in range(6):
            for j in range(7):
                x = x + i * j
                show(i, j)
        return x

    stats = compare(nested, torch.randn(6))
    assert stats["frames_compiled"] <= 2 * MAX_ENTRIES, stats


def test_a_thousand_passes_do_not_nest_a_frame_per_pass():
    # Each pass goes through two resume functions: called from one another they would exceed the
    # recursion limit; they are tail calls run by one loop (loom_symbolic.run_resume).
    stats = compare(over_range, torch.randn(6), 1000)
    _assert_bounded(stats)
