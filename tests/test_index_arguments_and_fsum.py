"""Builtins that read ints through ``__index__`` (``math.comb``/``perm``/``gcd``/``lcm``/``factorial``/``isqrt``,
``range``, ``chr``) take an object whose class writes ``__index__`` in Python as the int it gives, and
``math.fsum`` of a generator or iterator sums exactly as C does: one graph each, where both were breaks."""

from __future__ import annotations

import math

import torch

import loom


class Count:
    """An int stand-in: what ``__index__`` gives."""

    def __init__(self, value):
        self.value = value

    def __index__(self):
        return self.value


class NotAnInt:
    def __index__(self):
        return 1.5


def by_index(x):
    c = Count(3)
    total = math.comb(c, 2) + math.perm(c) + math.gcd(c, 6, Count(9)) + math.lcm(c, Count(4)) + math.factorial(c)
    return x + total + math.isqrt(Count(17)) + len(range(Count(1), Count(7), Count(2))) + ord(chr(Count(65)))


def by_index_negative(x):
    return x + math.factorial(Count(-1))


def by_index_not_an_int(x):
    return x + math.comb(NotAnInt(), 1)


def fsum_of_generators(x):
    exact = math.fsum(v for v in [1e100, 1.0, -1e100])
    return x + math.fsum(i / 10 for i in range(x.shape[0] * 4)) + exact + math.fsum(map(float, range(5)))


def fsum_stops_at_the_bad_item(x):
    taken = []

    def items():
        for v in (1.0, "a", 2.0):
            taken.append(v)
            yield v

    try:
        math.fsum(items())
    except TypeError as exc:
        return x + len(taken), str(exc)
    return x, ""


def fsum_overflows_at_the_item(x):
    taken = []

    def items():
        for v in (1e308, 1e308, 5.0, -1e308):
            taken.append(v)
            yield v

    try:
        math.fsum(items())
    except OverflowError as exc:
        return x + len(taken), str(exc)  # C stops at the second item
    return x, ""


def _explained(fn, x):
    loom.reset()
    report = loom.explain(fn)(x)
    loom.reset()
    return report.graph_count, report.graph_break_count


def test_index_written_in_python_is_read_by_int_builtins_in_one_graph():
    x = torch.arange(3.0)
    assert _explained(by_index, x) == (1, 0)
    expected = by_index(x)
    compiled = loom.compile(by_index, backend="eager")
    assert torch.equal(compiled(x), expected)
    assert torch.equal(compiled(x), expected)
    assert loom.stats()["recompiles"] == 0


def test_index_errors_are_eagers():
    x = torch.arange(3.0)
    for fn, error in ((by_index_negative, ValueError), (by_index_not_an_int, TypeError)):
        messages = []
        for run in (fn, loom.compile(fn, backend="eager")):
            try:
                run(x)
            except error as exc:
                messages.append(str(exc))
        assert len(messages) == 2 and messages[0] == messages[1], fn.__name__


def test_fsum_of_a_generator_is_one_graph_and_exact():
    x = torch.arange(3.0)
    for fn in (fsum_of_generators, fsum_stops_at_the_bad_item, fsum_overflows_at_the_item):
        assert _explained(fn, x) == (1, 0), fn.__name__
        expected = fn(x)
        got = loom.compile(fn, backend="eager")(x)
        assert repr(got) == repr(expected), fn.__name__
