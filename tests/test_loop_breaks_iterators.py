"""A loop over an *iterator* (one passed in, made by ``iter()``, or a 3.11 comprehension's ``.0``) with a
graph break in every pass compiles a bounded number of entries, as a loop over a list does.

The loop hands the real iterator on to the resume functions as (iterator, 0): its own state is the
position. Once it is seen at another position on the next entry it is not modelled (that would guard its
position, a compile per pass): the break moves to the loop's ``FOR_ITER``, the item is taken natively and
the loop body is a resume function entered with the item (docs/symbolic.md, "A graph break inside a
loop"). Before, that resume function broke in its prologue and ran uncompiled from the second pass on.
"""

from __future__ import annotations

import io
import sys

import pytest
import torch

import loom

_SINK = io.StringIO()

#: Frames of the loop's function: itself, the resume function after the break (twice: at a position,
#: then with the iterator handed on), the loop body entered per pass, and the code after the loop.
MAX_LOOP_FRAMES = 5
MAX_LOOP_RECOMPILES = 1


def brk(t):
    print("", end="", file=_SINK)
    return t


def loop_over(x, it):
    out = x
    for i in it:
        out = brk(out * 0.5 + i) + 1
    return out


def loop_until(x, it, stop):
    out = x
    for i in it:
        out = brk(out * 0.5 + i)
        if i >= stop:
            break
    else:
        out = out - 100
    return out


def loop_raising(x, it, at):
    out = x
    for i in it:
        out = brk(out + i)
        if i == at:
            raise ValueError("stopped at", i)
    return out


def comprehension(x, n):
    ys = [brk(x * i) + 1 for i in range(n)]
    return torch.stack(ys).sum(0)


MAKERS = {
    "list": lambda n: iter([k % 7 + 1 for k in range(n)]),
    "tuple": lambda n: iter(tuple(k * 3 for k in range(n))),
    "range": lambda n: iter(range(n)),
    "dict_keys": lambda n: iter({k * 2 + 1: k for k in range(n)}),
}


def explained(fn, *args):
    loom.reset()
    return loom.explain(fn, backend="eager", options={"strict": True})(*args)


def frames_of(report, fn):
    """(frames compiled, recompiles) of ``fn`` and its resume functions; none may have run uncompiled."""
    mine = [f for f in report.frames if f.name.split(" ")[0] == fn.__qualname__]
    assert all(f.captured for f in mine), [f.where for f in mine if not f.captured]
    return len(mine), sum(f.recompile_reason is not None for f in mine)


def assert_bounded(report, fn, branches=0):
    """At most the loop's entries; a branch on the item (``if i >= stop``) that flips once in the loop adds
    one recompile of the body each (its guard on the symbolic item fails once)."""
    frames, recompiles = frames_of(report, fn)
    assert frames <= MAX_LOOP_FRAMES + branches and recompiles <= MAX_LOOP_RECOMPILES + branches, (frames, recompiles)


@pytest.mark.parametrize("n", [4, 30, 100])
@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_a_loop_over_an_iterator_passed_in_compiles_a_bounded_number_of_entries(kind, n):
    x = torch.randn(3)
    expected = loop_over(x, MAKERS[kind](n))
    it = MAKERS[kind](n)
    report = explained(loop_over, x, it)
    torch.testing.assert_close(report.result, expected)
    assert list(it) == []
    assert_bounded(report, loop_over)
    assert sum(len(f.graphs) for f in report.frames) >= 2  # the body's tensor work is in graphs


@pytest.mark.parametrize("kind", sorted(MAKERS))
def test_an_early_break_leaves_the_iterator_where_eager_does(kind):
    x = torch.randn(3)
    stop = list(MAKERS[kind](40))[25]
    eager_it = MAKERS[kind](40)
    expected = loop_until(x, eager_it, stop)
    it = MAKERS[kind](40)
    report = explained(loop_until, x, it, stop)
    torch.testing.assert_close(report.result, expected)
    assert list(it) == list(eager_it) != []
    assert_bounded(report, loop_until, branches=1)


def test_a_loop_run_to_its_end_takes_the_else_clause_and_exhausts_the_iterator():
    x = torch.randn(3)
    items = list(range(30))
    expected = loop_until(x, iter(items), 1000)
    it = iter(items)
    report = explained(loop_until, x, it, 1000)
    torch.testing.assert_close(report.result, expected)
    items.append(99)  # an exhausted list iterator lets go of its list, as CPython's does
    assert list(it) == []
    assert_bounded(report, loop_until, branches=1)


def test_a_body_that_raises_leaves_the_iterator_where_eager_does():
    x = torch.randn(3)
    compiled = loom.compile(loop_raising, backend="eager", options={"strict": True})
    loom.reset()
    it = iter(range(30))
    with pytest.raises(ValueError) as caught:
        compiled(x, it, 20)
    assert caught.value.args == ("stopped at", 20)
    assert list(it) == list(range(21, 30))
    stats = loom.stats()
    assert 0 < stats["frames_compiled"] <= MAX_LOOP_FRAMES + 2 and stats["recompiles"] <= MAX_LOOP_RECOMPILES + 1


def test_a_second_identical_call_compiles_nothing():
    loom.reset()
    compiled = loom.compile(loop_over, backend="eager", options={"strict": True})
    x = torch.randn(3)
    first = compiled(x, iter(range(30)))
    before = loom.stats()
    second = compiled(x, iter(range(30)))
    after = loom.stats()
    torch.testing.assert_close(second, first)
    assert (after["frames_compiled"], after["recompiles"]) == (before["frames_compiled"], before["recompiles"])
    assert after["cache_hits"] > before["cache_hits"]


def test_the_caller_goes_on_with_the_iterator():
    def caller(x):
        it = iter(list(range(60)))
        a = loop_until(x, it, 20)
        b = loop_until(a, it, 45)
        return b, list(it)

    x = torch.randn(3)
    expected = caller(x)
    report = explained(caller, x)
    torch.testing.assert_close(report.result[0], expected[0])
    assert report.result[1] == expected[1]
    assert all(f.captured for f in report.frames if f.name.startswith("loop_until"))


@pytest.mark.parametrize("n", [4, 30, 100])
def test_a_comprehension_with_a_break_in_its_element(n):
    # On 3.11 the comprehension is a function of its own looping over the iterator ``.0``; from 3.12 it
    # is inlined and loops over the range's iterator in the frame.
    x = torch.randn(3)
    report = explained(comprehension, x, n)
    torch.testing.assert_close(report.result, comprehension(x, n))
    assert all(f.captured for f in report.frames if "comprehension" in f.name), [
        f.where for f in report.frames if not f.captured]
    listcomps = [f for f in report.frames if "<listcomp>" in f.name]
    if sys.version_info < (3, 12):
        assert 0 < len(listcomps) <= MAX_LOOP_FRAMES + 1  # and the list it grows is handed on unread
    assert len(report.frames) <= 12


def test_a_generator_passed_in_breaks_once_not_once_per_pass():
    x = torch.randn(3)
    report = explained(loop_over, x, (k % 8 for k in range(30)))
    torch.testing.assert_close(report.result, loop_over(x, (k % 8 for k in range(30))))
    assert report.break_count <= 6


def enumerate_named(x, n):
    it = iter([k % 4 for k in range(n)])
    out = x
    for i, v in enumerate(it):
        out = brk(out * 0.5 + v) + i
    return out, list(it)


def zip_named(x, n):
    a = iter(range(n))
    b = iter([k % 3 for k in range(n + 10)])
    out = x
    for i, v in zip(a, b):
        out = brk(out + i * v)
    return out, list(a), list(b)


def enumerate_list(x, items):
    out = x
    for i, v in enumerate(items):
        out = brk(out * 0.5 + v) + i
    return out


@pytest.mark.parametrize("fn", [enumerate_named, zip_named])
def test_enumerate_and_zip_over_an_iterator_a_name_holds_share_it(fn):
    # Before: the loop went on over a copy of the iterator rebuilt from its list, and the name's iterator
    # stayed where the break found it (``list(it)`` gave the items the loop had already taken).
    x = torch.randn(3)
    expected = fn(x, 30)
    report = explained(fn, x, 30)
    torch.testing.assert_close(report.result[0], expected[0])
    assert report.result[1:] == expected[1:]
    frames, recompiles = frames_of(report, fn)
    assert frames <= MAX_LOOP_FRAMES + 1 and recompiles <= MAX_LOOP_RECOMPILES, (frames, recompiles)


def test_an_enumerate_item_is_a_tuple_of_symbols_not_a_constant():
    # Before: the body's resume function guarded the item ``(i, v)`` as one constant, a compile per pass.
    x = torch.randn(3)
    items = [k % 4 for k in range(30)]
    report = explained(enumerate_list, x, items)
    torch.testing.assert_close(report.result, enumerate_list(x, items))
    frames, recompiles = frames_of(report, enumerate_list)
    assert frames <= MAX_LOOP_FRAMES + 1 and recompiles <= MAX_LOOP_RECOMPILES, (frames, recompiles)
