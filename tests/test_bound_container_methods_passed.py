"""A C method bound to a list, dict or set of the caller (``log.append`` handed in, kept in a closure or in an
``ExitStack``'s callbacks) is traced as that container's method: its effect is seen by the rest of the trace
and by the caller, and a different method or container at the same place recompiles. In a resume function
(after a graph break) the call stays a break, as a loop may hand the container on growing pass after pass."""

from __future__ import annotations

import contextlib

import torch
from breaks_harness import compare

import loom


@torch._dynamo.disable
def _opaque(t):
    return t + 1


def appends_through_the_method(x, app, log):
    app(5)
    n = len(log)
    log.append(7)
    app(9)
    return x + n, list(log)


def pops_through_the_method(x, pop):
    return x + pop("k"), pop("z", 3)


def exit_stack_callback_after_a_break(x):
    log = []
    with contextlib.ExitStack() as stack:
        stack.callback(log.append, "cb")
        y = _opaque(x)
    return y * 2, log


def test_list_append_handed_in_is_traced():
    # (compare() deep-copies arguments, which would part the method from its list: checked by hand)
    expected_log = [1]
    expected = appends_through_the_method(torch.arange(3.0), expected_log.append, expected_log)
    loom.reset()
    compiled = loom.compile(appends_through_the_method)
    mine = [1]
    out, seen = compiled(torch.arange(3.0), mine.append, mine)
    assert torch.equal(out, expected[0]) and seen == mine == expected_log == [1, 5, 7, 9]
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0
    again = [1, 2]
    out, seen = compiled(torch.arange(3.0), again.append, again)  # a longer list: its guard fails
    assert torch.equal(out, torch.arange(3.0) + 3) and again == [1, 2, 5, 7, 9]


def test_dict_pop_handed_in_and_other_method_recompiles():
    loom.reset()
    compiled = loom.compile(pops_through_the_method)
    d = {"k": 2}
    out, default = compiled(torch.arange(3.0), d.pop)
    assert torch.equal(out, torch.arange(3.0) + 2) and default == 3 and d == {}
    graphs = loom.stats()["graphs"]
    assert graphs == 1 and loom.stats()["graph_breaks"] == 0
    out, default = compiled(torch.arange(3.0), {"k": 4, "z": 1}.get)  # another method: the guard fails
    assert torch.equal(out, torch.arange(3.0) + 4) and default == 1


def test_in_a_resume_function_the_call_still_breaks_and_agrees():
    # a loop's resume function may be handed the container pass after pass: there the call stays a break
    stats = compare(exit_stack_callback_after_a_break, torch.arange(3.0))
    assert stats["graph_breaks"] == 2, stats
