"""An unstarted generator passed into a compiled function whose code closes over cells or takes ``*args`` /
``**kwargs`` is run by the trace too (issue 29): its cells are the real ones (a write the frame makes to a
shared cell before the generator runs is read by it, as in eager), its extra arguments are bound afresh from
the generator's own tuple and dict, and the generator is closed after the graph as eager leaves it finished."""

from __future__ import annotations

import inspect

import pytest
import torch

import loom


def _scaled(k):
    def gen(*ts):
        for t in ts:
            yield t * k
    return gen


def _keyworded(k):
    def gen(a, *ts, scale=1, **kw):
        yield a * k * scale
        for t in ts:
            yield t * k
        for name, t in kw.items():
            yield t + len(name)
    return gen


def _shared_cell():
    k = 2

    def gen(t):
        yield t * k
        yield t + k

    def bump():
        nonlocal k
        k = k + 1

    return gen, bump


def _frame_closure():
    k = 2

    def gen(t):
        yield t * k

    def frame(x, g):
        nonlocal k
        k = 5  # the frame's own free variable, the generator's cell
        return x + sum(g)

    return gen, frame


def summed(x, gen):
    return x + sum(gen)


def bumped_first(x, gen, bump):
    bump()
    return x + sum(gen)


def _writer():
    k = 1

    def gen(t):
        nonlocal k
        k = k + 1
        yield t * k

    def read():
        return k

    return gen, read


MAKERS = {
    "closure_varargs": lambda x: (_scaled(2)(x, x + 1),),
    "varargs_kwargs": lambda x: (_keyworded(3)(x, x + 1, x + 2, scale=2, aa=x, b=x),),
}


@pytest.mark.parametrize("name", list(MAKERS))
def test_closure_and_star_arguments_in_one_graph(name):
    x = torch.randn(3)
    make = MAKERS[name]
    loom.reset()
    compiled = loom.compile(summed, backend="eager")
    for _ in range(2):  # the second call runs the cached entry on a new generator
        arg = make(x)
        torch.testing.assert_close(compiled(x, *arg), summed(x, *make(x)))
        assert inspect.getgeneratorstate(arg[0]) == inspect.GEN_CLOSED
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["cache_hits"]) == (1, 0, 1)


def test_other_contents_and_arity_recompile():
    x = torch.randn(3)
    compiled = loom.compile(summed, backend="eager")
    loom.reset()
    for k, n in [(2, 2), (3, 2), (2, 3)]:
        args = [x + i for i in range(n)]
        torch.testing.assert_close(compiled(x, _scaled(k)(*args)), summed(x, _scaled(k)(*args)))
    assert loom.stats()["graphs"] == 3


def test_a_cell_written_by_another_closure_first():
    x = torch.randn(3)
    gen, bump = _shared_cell()
    expected = bumped_first(x, gen(x), bump)
    gen, bump = _shared_cell()
    report = loom.explain(bumped_first)(x, gen(x), bump)
    assert (report.graph_count, report.break_count) == (1, 0)
    gen, bump = _shared_cell()
    torch.testing.assert_close(loom.compile(bumped_first, backend="eager")(x, gen(x), bump), expected)


def test_a_cell_the_frame_changes():
    x = torch.randn(3)
    gen, frame = _frame_closure()
    expected = frame(x, gen(x))
    gen, frame = _frame_closure()
    report = loom.explain(frame)(x, gen(x))
    assert (report.graph_count, report.break_count) == (1, 0)
    gen, frame = _frame_closure()
    torch.testing.assert_close(loom.compile(frame, backend="eager")(x, gen(x)), expected)


def test_a_write_from_the_generator_breaks_and_matches_eager():
    x = torch.randn(3)
    gen, read = _writer()
    expected = (summed(x, gen(x)), read())
    gen, read = _writer()
    loom.reset()
    out = loom.compile(summed, backend="eager")(x, gen(x))
    torch.testing.assert_close(out, expected[0])
    assert read() == expected[1]
    gen, _ = _writer()
    report = loom.explain(summed)(x, gen(x))
    assert report.break_count == 1 and "nonlocal k" in str(report.breaks[0])


# A generator the trace made but did not start, alive at a graph break, is made again by the rewritten
# code (its function from the frame's cells, its bound arguments) and handed to the resume function,
# where it is a generator from the frame: the rest of the function is a second graph, not plain Python.


def made_before_a_break(x):
    k = 2

    def gen(*ts, scale=1, **kw):
        for t in ts:
            yield t * k * scale
        yield from kw.values()

    g = gen(x, x + 1, scale=3, extra=x)
    loom.graph_break()
    k = 3  # the frame changes the cell after the break: the generator reads 3, as in eager
    return sum(g)


def generator_expression_before_a_break(x):
    g = (t * 2 for t in range(3))
    loom.graph_break()
    return x + sum(g)


def test_an_unstarted_generator_crosses_a_break():
    x = torch.randn(3)
    expected = made_before_a_break(x)
    loom.reset()
    compiled = loom.compile(made_before_a_break, backend="eager")
    for _ in range(2):
        torch.testing.assert_close(compiled(x), expected)
    report = loom.explain(made_before_a_break)(x)
    assert (report.graph_count, report.break_count) == (2, 1)  # the resume function is traced too
    assert "rest of the function" not in (report.breaks[0].reason.hint or "")


def test_a_generator_over_a_range_iterator_crosses_a_break():
    x = torch.randn(3)
    expected = generator_expression_before_a_break(x)
    loom.reset()
    torch.testing.assert_close(loom.compile(generator_expression_before_a_break, backend="eager")(x), expected)
    # its range iterator is rebuilt at the break (iter_at): the rest of the function is no longer left uncompiled
    report = loom.explain(generator_expression_before_a_break)(x)
    assert report.break_count == 1 and "rest of the function" not in (report.breaks[0].reason.hint or "")


# Which cells a generator from the frame shares with the other ways the trace reaches cells (the frame's own
# free variables, a function passed in) is part of what the graph relies on: a generator from another
# closure, same code and same contents, must not reuse it (its function is guarded by identity then).


def test_a_generator_from_another_closure_does_not_reuse_a_graph_that_shared_its_cell():
    x = torch.ones(3)
    gen, bump = _shared_cell()
    loom.reset()
    compiled = loom.compile(bumped_first, backend="eager")
    torch.testing.assert_close(compiled(x, gen(x), bump), bumped_first(x, *_fresh_shared_pair(x)))
    bump.__closure__[0].cell_contents = 2  # the same bump (guarded by identity), its cell holding 2 again
    other, _ = _shared_cell()  # the same code and contents, another cell: bump's write is not its
    expected = x + x * 2 + x + 2
    torch.testing.assert_close(compiled(x, other(x), bump), expected)
    assert loom.stats()["recompiles"] == 1


def test_a_generator_that_now_shares_a_cell_does_not_reuse_a_graph_that_did_not():
    x = torch.ones(3)
    gen, _ = _shared_cell()
    other, bump = _shared_cell()
    loom.reset()
    compiled = loom.compile(bumped_first, backend="eager")
    torch.testing.assert_close(compiled(x, gen(x), bump), x + x * 2 + x + 2)  # bump's cell is not gen's
    bump.__closure__[0].cell_contents = 2
    torch.testing.assert_close(compiled(x, other(x), bump), x + x * 3 + x + 3)  # now it is: gen reads 3
    assert loom.stats()["recompiles"] == 1


def test_the_frames_own_cell_is_not_taken_for_another_generators():
    x = torch.ones(3)
    gen, frame = _frame_closure()
    loom.reset()
    compiled = loom.compile(frame, backend="eager")
    torch.testing.assert_close(compiled(x, gen(x)), x + x * 5)  # the frame's k is gen's: 5
    other, _ = _frame_closure()
    torch.testing.assert_close(compiled(x, other(x)), x + x * 2)  # another closure's k: still 2


def _fresh_shared_pair(x):
    gen, bump = _shared_cell()
    return gen(x), bump
