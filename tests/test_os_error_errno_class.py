"""``OSError(errno, strerror, ...)`` made inside compiled code is the subclass CPython's ``OSError.__new__``
picks for that errno (``FileNotFoundError`` for ENOENT), so ``type(e)`` and ``except PermissionError`` agree
with eager; a subclass of OSError, or one or more than five arguments, keeps its own class."""

from __future__ import annotations

import errno

import pytest
import torch
from breaks_harness import compare

import loom


def made_and_named(x):
    e = OSError(errno.ENOENT, "missing")
    return x + 1, type(e).__name__, e.errno, e.strerror


def raised_and_caught_by_subclass(x):
    try:
        raise OSError(errno.EACCES, "no", "file.txt")
    except PermissionError as e:
        return x + 1, e.filename, str(e)
    except OSError:
        return x - 1, None, "plain"


def caught_by_the_first_matching_clause(x):
    try:
        raise OSError(errno.EEXIST, "there")
    except FileExistsError:
        return x + 1
    except OSError:
        return x - 1


def arities_and_own_subclasses(x):
    class Mine(OSError):
        pass

    return x * 2, [type(e).__name__ for e in (OSError("plain"), OSError(2), Mine(2, "x"), OSError(1, "x"))]


@pytest.mark.parametrize("fn", [made_and_named, raised_and_caught_by_subclass, caught_by_the_first_matching_clause,
                                arities_and_own_subclasses], ids=lambda fn: fn.__name__)
def test_errno_picks_the_class_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
    report = loom.explain(fn)(torch.arange(3.0))
    assert report.graph_count == 1 and report.graph_break_count == 0, report.breaks
