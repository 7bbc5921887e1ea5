"""A ``for i in range(n)`` loop with a graph break in its body, once its position varies, is modelled at a
symbolic position (``variables/symbolic_ranges.py``): the resume function after the break compiles one
entry for every middle pass (the rest of the body, the next item, the body up to the break) and one for
the pass that leaves the loop, instead of breaking again at the loop's ``FOR_ITER`` and entering a loop-head
resume function every pass. So such a loop compiles fewer frames than before, the same number whatever its
length, with eager's values and prints (``compare`` also checks a second call); the index used as a Python
int (a branch, a list index, a sum) still gives eager's answers.
"""

from __future__ import annotations

import re

import pytest
import torch
from breaks_harness import compare

import loom


@torch._dynamo.disable
def _opaque(a):
    return a + 1


TENSORS = [torch.randn(4) for _ in range(40)]


def body_break(x, n):
    y = x + 1
    for i in range(n):
        y = y * 2
        y = _opaque(y)
        y = y - i
    return y + 1


def stepped(x, n):
    for i in range(3, 3 + 2 * n, 2):
        x = x * 0.5
        x = _opaque(x)
        x = x + i
    return x


def nested(x, n):
    for i in range(n):
        for j in range(3):
            x = x * 0.5 + j
            x = _opaque(x)
        x = x - i
    return x


def with_break(x, n):
    for i in range(n):
        x = _opaque(x * 0.5)
        if i == n - 3:
            break
        x = x + i
    return x, i


def with_continue(x, n):
    for i in range(n):
        x = _opaque(x * 0.5)
        if i % 3 == 0:
            continue
        x = x + i
    return x


def branch_on_index(x, n):
    for i in range(n):
        x = _opaque(x)
        if i % 2:
            x = x * 2
        else:
            x = x - 1
    return x


def list_index(x, n):
    for i in range(n):
        x = _opaque(x)
        x = x + TENSORS[i]
    return x


def for_else(x, n):
    for i in range(n):
        x = _opaque(x) + i
    else:
        x = x * 3
    return x


def index_after_loop(x, n):
    for i in range(n):
        x = _opaque(x) + i
    return x * i


def python_sum(x, n):
    total = 0
    for i in range(n):
        x = _opaque(x)
        total += i * i
    return x + total


def enumerated(x, n):
    for k, i in enumerate(range(n)):
        x = _opaque(x) * 0.5 + k - i
    return x


def triangle(x, n):
    for i in range(n):
        x = _opaque(x)
        for j in range(i):
            x = x + j
    return x


def head_work(x, n):
    for i in range(n):
        x = x + i * 2
        x = _opaque(x)
    return x


#: (function, length, frames compiled at most): each bound is one or two less than before symbolic positions.
FEWER = [
    (body_break, 4, 4), (body_break, 30, 4), (stepped, 4, 4), (stepped, 30, 4), (nested, 4, 6), (nested, 30, 6),
    (with_break, 30, 4), (with_continue, 4, 4), (with_continue, 30, 5), (head_work, 4, 4), (head_work, 30, 4),
]

#: (function, length, frames compiled at most, graphs at most): the index as a Python int, or no graph work
#: from the item to the break (the loop breaks at its ``FOR_ITER`` then, as before): eager's answers, and no
#: more frames or graphs than before.
SAME = [
    (branch_on_index, 4, 6, 3), (branch_on_index, 30, 6, 3), (list_index, 4, 7, 3), (list_index, 30, 6, 2),
    (for_else, 4, 5, 3), (for_else, 30, 5, 3), (index_after_loop, 4, 5, 3), (index_after_loop, 30, 5, 3),
    (python_sum, 4, 6, 3), (python_sum, 30, 5, 3), (with_break, 4, 3, 2), (enumerated, 4, 5, 2),
    (enumerated, 30, 5, 2), (triangle, 4, 6, 3),
]


@pytest.mark.parametrize(("fn", "n", "frames"), FEWER, ids=[f"{fn.__name__}-{n}" for fn, n, _ in FEWER])
def test_a_range_loop_compiles_fewer_frames_with_eagers_answer(fn, n, frames):
    stats = compare(fn, torch.randn(4), n)
    assert stats["frames_compiled"] <= frames, stats


@pytest.mark.parametrize(("fn", "n", "frames", "graphs"), SAME, ids=[f"{c[0].__name__}-{c[1]}" for c in SAME])
def test_the_index_as_a_python_int_keeps_eagers_answer(fn, n, frames, graphs):
    stats = compare(fn, torch.randn(4), n)
    assert stats["frames_compiled"] <= frames, stats
    assert stats["graphs"] <= graphs, stats


@pytest.mark.parametrize("n", [4, 30])
def test_the_example_is_four_graphs_one_entry_for_the_middle_passes(n):
    x = torch.randn(3)
    report = loom.explain(body_break)(x, n)
    torch.testing.assert_close(report.result, body_break(x, n))
    assert len(report.graphs) == 4  # the function; the resume function at position 1, middle passes, exit
    text = str(report)
    # the middle passes' entry compares the position with the range's stop, both symbols (any length)
    assert re.search(r"s\d+ < s\d+ \(where s\d+ = L\['___stack0_iterable'\]\.stop", text), text


@pytest.mark.parametrize("fn", [body_break, nested, branch_on_index])
def test_a_second_identical_call_compiles_nothing(fn):
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    x = torch.randn(4)
    torch.testing.assert_close(compiled(x, 12), fn(x, 12))
    before = loom.stats()["frames_compiled"]
    torch.testing.assert_close(compiled(x, 12), fn(x, 12))
    assert loom.stats()["frames_compiled"] == before


def test_another_length_on_a_later_call_keeps_eagers_answer():
    loom.reset()
    compiled = loom.compile(body_break, backend="eager")
    x = torch.randn(4)
    for n in (4, 30, 7, 4, 0, 1, 30):
        torch.testing.assert_close(compiled(x, n), body_break(x, n))


@pytest.mark.parametrize(("fn", "frames"), [(body_break, 3), (nested, 4)])
@pytest.mark.parametrize("n", [4, 30])
def test_dynamic_true_compiles_the_middle_passes_once(fn, frames, n):
    loom.reset()
    compiled = loom.compile(fn, backend="eager", dynamic=True)
    x = torch.randn(4)
    torch.testing.assert_close(compiled(x, n), fn(x, n))
    assert loom.stats()["frames_compiled"] <= frames, loom.stats()  # the position is a symbol from the start


def test_loops_of_other_lengths_on_later_calls_share_the_middle_entry():
    loom.reset()
    compiled = loom.compile(body_break, backend="eager")
    for n in (5, 9, 2, 30, 5, 0, 12, 40, 7, 30):
        x = torch.randn(4)
        torch.testing.assert_close(compiled(x, n), body_break(x, n))
    assert loom.stats()["frames_compiled"] <= 11, loom.stats()  # the range's stop is a symbol, not a constant
