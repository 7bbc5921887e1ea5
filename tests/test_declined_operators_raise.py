"""An operator whose special methods, written in Python, all answer NotImplemented raises Python's TypeError
in the trace (``a < b``, ``a + 1``, ``a += 1``, and the comparisons of a sort), with CPython's message: one
graph, where it was a graph break."""

from __future__ import annotations

import torch

import loom


class Declines:
    def __lt__(self, other):
        return NotImplemented

    def __add__(self, other):
        return NotImplemented

    def __radd__(self, other):
        return NotImplemented


class Reflects:
    def __lt__(self, other):
        return NotImplemented

    def __gt__(self, other):
        return True


def declined_everywhere(x):
    messages = []
    for make in (lambda: Declines() < Declines(), lambda: Declines() + 1, lambda: 1 + Declines(),
                 lambda: 2.5 < Declines(), lambda: sorted([Declines(), Declines()])):
        try:
            make()
        except TypeError as exc:
            messages.append(str(exc))
    d = Declines()
    try:
        d += 1
    except TypeError as exc:
        messages.append(str(exc))
    return x + len(messages), messages


def reflected_answers(x):
    return x + (Reflects() < Reflects())


def test_all_declined_raises_pythons_type_error_in_one_graph():
    x = torch.arange(3.0)
    for fn in (declined_everywhere, reflected_answers):
        report = loom.explain(fn)(x)
        assert (report.graph_count, report.graph_break_count) == (1, 0), [b.what for b in report.breaks]
        loom.reset()
        expected = fn(x)
        compiled = loom.compile(fn, backend="eager")
        assert repr(compiled(x)) == repr(expected)
        assert repr(compiled(x)) == repr(expected)
        assert loom.stats()["recompiles"] == 0
        loom.reset()
    assert len(declined_everywhere(x)[1]) == 6
