"""``itertools.count`` objects passed in (issue 29, after test/dynamo/cpython/3_13/test_itertools.py): walked in
the graph from the number their ``repr`` says they stand at, and stepped after it as eager steps them. It was a
break at each ``next()`` ("next() on count object: not an iterator the translator models")."""

import itertools

import torch

import loom


def _two(x, c):
    return x + next(c) * next(c)


def _check(fn, make, breaks=0):
    loom.reset()
    eager, compiled = make(), make()
    expected = fn(torch.ones(2), eager)
    actual = loom.compile(fn, backend="eager")(torch.ones(2), compiled)
    torch.testing.assert_close(actual, expected)
    after_eager, after_compiled = next(eager), next(compiled)
    assert after_compiled == after_eager and type(after_compiled) is type(after_eager)
    report = loom.explain(fn)(torch.ones(2), make())
    assert (report.graph_count, report.graph_break_count) == (1, breaks), [b.why for b in report.breaks]


def test_int_and_float_counters_are_stepped_as_eager_steps_them():
    _check(_two, lambda: itertools.count(5, 2))
    _check(_two, lambda: itertools.count(0.5, 0.1))  # float sums drift as C's count adds
    _check(_two, lambda: itertools.count(5, 1.0))  # an int start, a float after the first step


def test_a_loop_over_a_counter_zipped_with_a_list():
    def loop(x, c):
        for i, v in zip(c, [1.0, 2.0, 3.0]):
            x = x + i * v
        return x

    _check(loop, lambda: itertools.count(3))


def test_a_counter_over_other_numbers_stays_opaque():
    from fractions import Fraction

    _check(lambda x, c: x + float(next(c) * next(c)), lambda: itertools.count(Fraction(1, 2)), breaks=1)


def test_a_counter_at_another_number_recompiles():
    loom.reset()
    compiled = loom.compile(_two, backend="eager")
    assert torch.equal(compiled(torch.zeros(1), itertools.count(2)), torch.tensor([6.0]))
    assert torch.equal(compiled(torch.zeros(1), itertools.count(2)), torch.tensor([6.0]))
    assert loom.stats()["recompiles"] == 0
    assert torch.equal(compiled(torch.zeros(1), itertools.count(2, 3)), torch.tensor([10.0]))
    assert loom.stats()["recompiles"] == 1
