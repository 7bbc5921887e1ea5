"""A generator object passed into a compiled function, not started yet, is run by the trace (issue 29): the
generator of a ``@contextlib.contextmanager`` object entered and exited by hand is one graph, as one made in
the trace is. The real generator ends where eager leaves it: finished (closed) when the trace ran it out,
and, when the trace would leave it paused inside, the function breaks where the generator is first resumed
and runs it as ordinary Python from there."""

from __future__ import annotations

import contextlib
import inspect
import io

import pytest
import torch

import loom


@contextlib.contextmanager
def _sined(t, log):
    log.append("enter")
    try:
        yield t.sin()
    finally:
        log.append("exit")


def entered_by_hand(x, ctx):
    y = ctx.__enter__()
    ctx.__exit__(None, None, None)
    return x + y


def entered_with(x, ctx):
    with ctx as y:
        z = x * y
    return z


def entered_only(x, ctx):
    y = ctx.__enter__()
    return x + y


def suppressed(x, ctx):
    with contextlib.suppress(ZeroDivisionError):
        with ctx as y:
            x = x + y
            raise ZeroDivisionError
    return x


def _counting(t, log, n=3):
    for i in range(n):
        log.append(i)
        yield t * i
    return "done"


def consumed(x, gen):
    total = x
    for item in gen:
        total = total + item
    return total


_SINK = io.StringIO()


def consumed_with_a_break(x, gen):
    total = x
    for item in gen:  # the break moves to the loop's first step: every item is taken once, for real
        print("break", file=_SINK)
        total = total + item
    return total


def one_item(x, gen):
    return x + next(gen)


def returned_value(x, gen):
    items = []
    try:
        while True:
            items.append(next(gen))
    except StopIteration as stop:
        return x + sum(items), stop.value


CASES = [
    (entered_by_hand, lambda x, log: _sined(x + 1, log), (1, 0), inspect.GEN_CLOSED),
    (entered_with, lambda x, log: _sined(x + 1, log), (1, 0), inspect.GEN_CLOSED),
    (suppressed, lambda x, log: _sined(x + 1, log), (1, 0), inspect.GEN_CLOSED),
    (consumed, lambda x, log: _counting(x + 1, log), (1, 0), inspect.GEN_CLOSED),
    (returned_value, lambda x, log: _counting(x + 1, log), (1, 0), inspect.GEN_CLOSED),
    (consumed_with_a_break, lambda x, log: _counting(x + 1, log), None, inspect.GEN_CLOSED),
    (entered_only, lambda x, log: _sined(x + 1, log), None, inspect.GEN_SUSPENDED),
    (one_item, lambda x, log: _counting(x + 1, log), None, inspect.GEN_SUSPENDED),
]


def _generator(arg):
    return arg.gen if isinstance(arg, contextlib._GeneratorContextManager) else arg


def _run(fn, make, x):
    log = []
    arg = make(x, log)
    out = fn(x, arg)
    return out, list(log), inspect.getgeneratorstate(_generator(arg))  # a copy: closing at collection logs too


def _same(actual, expected):
    (out, log, state), (e_out, e_log, e_state) = actual, expected
    if isinstance(e_out, tuple):
        torch.testing.assert_close(out[0], e_out[0])
        assert out[1:] == e_out[1:]
    else:
        torch.testing.assert_close(out, e_out)
    assert (log, state) == (e_log, e_state)


@pytest.mark.parametrize("fn,make,counts,state", CASES, ids=[c[0].__name__ for c in CASES])
def test_eager_answer_and_generator_state(fn, make, counts, state):
    x = torch.randn(3)
    expected = _run(fn, make, x)
    assert expected[2] == state
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    for _ in range(2):  # the second call runs the cached entry on a new generator
        _same(_run(compiled, make, x), expected)
    stats = loom.stats()
    if counts is not None:
        assert (stats["graphs"], stats["graph_breaks"]) == counts
        assert stats["cache_hits"] >= 1
    else:  # paused by the trace: one break, where the generator is first resumed
        assert stats["graph_breaks"] == 1


def test_a_started_generator_runs_as_it_is():
    x = torch.randn(3)
    gen, eager_gen = _counting(x, []), _counting(x, [])
    next(gen), next(eager_gen)
    loom.reset()
    torch.testing.assert_close(loom.compile(consumed, backend="eager")(x, gen), consumed(x, eager_gen))
    assert inspect.getgeneratorstate(gen) == inspect.GEN_CLOSED


def test_a_finished_generator_is_not_run_again():
    x = torch.randn(3)
    compiled = loom.compile(consumed, backend="eager")
    loom.reset()
    gen = _counting(x, [])
    compiled(x, gen)
    torch.testing.assert_close(compiled(x, gen), x)  # exhausted: the loop takes nothing


def test_the_break_names_the_paused_generator_and_its_first_step():
    x = torch.randn(3)
    report = loom.explain(one_item)(x, _counting(x, []))
    assert report.break_count == 1
    text = str(report.breaks[0])
    assert "generator _counting from the frame" in text and "paused" in text
    assert "test_frame_generators.py" in text and "next(gen)" in text
