"""Issue 29's wrong answers, end to end through ``loom.compile`` (hook, guards, cache, rewritten code):
each program behaves as in eager on a first and a second call, captured in one graph without a break.
The translator's own tests cover each rule in detail (``packages/symbolic/tests``)."""
# ruff: noqa: B904  (raising inside except without "from" is what the chain case is about)

from __future__ import annotations

import pytest
import torch
from breaks_harness import BreakCases, compare

CASES = BreakCases()
case = CASES


def _counted(seen):
    for i in range(8):
        seen.append(i)
        yield i


@case(torch.ones(3), [], graphs=1, breaks=0)
def isdisjoint_of_a_generator(x, seen):
    return x + 1, {2, 4, 5}.isdisjoint(_counted(seen)), seen


def _stops():
    yield 1
    raise StopIteration


@case(torch.ones(3), graphs=1, breaks=0)
def stop_iteration_inside_a_generator(x):
    gen = _stops()
    next(gen)
    try:
        next(gen)
    except RuntimeError as exc:
        return x + 1, str(exc), type(exc.__cause__).__name__
    except StopIteration:
        return x - 1, "StopIteration escaped", None


@case(torch.ones(3), graphs=1, breaks=0)
def context_chain_through_except_and_finally(x):
    try:
        try:
            try:
                raise TypeError("t")
            except TypeError:
                raise ValueError("v")
        finally:
            raise OSError("o")
    except OSError as exc:
        return x + 1, type(exc.__context__).__name__, type(exc.__context__.__context__).__name__


@case(torch.ones(3), graphs=1, breaks=0)
def cause_and_suppressed_context(x):
    try:
        try:
            raise KeyError("k")
        except KeyError as inner:
            raise ValueError("v") from inner
    except ValueError as exc:
        caused = type(exc.__cause__).__name__, exc.__suppress_context__
    try:
        try:
            raise KeyError("k")
        except KeyError:
            raise ValueError("v") from None
    except ValueError as exc:
        return x + 1, caused, exc.__cause__, exc.__suppress_context__, type(exc.__context__).__name__


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs", "breaks"), CASES)
def test_issue_29_programs_behave_as_in_eager(fn, args, kwargs, graphs, breaks):
    stats = compare(fn, *args, **kwargs)
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
