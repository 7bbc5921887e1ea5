"""``raise Cls`` (and ``raise ... from Cls``) inside compiled code instantiates the class as ``Cls()`` does: a user
``__init__`` runs (its attributes exist on the caught exception), and one that needs arguments raises
CPython's TypeError, caught by the program's ``except TypeError`` and not by ``except Cls``; keywords given to a
builtin exception's constructor (or a subclass's that runs no Python code) raise CPython's TypeError too."""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare

import loom


class Needs(Exception):
    def __init__(self, a):
        super().__init__(a)


class Coded(Exception):
    def __init__(self, code=5):
        super().__init__("coded")
        self.code = code


def raise_class_needing_argument(x):
    try:
        raise Needs
    except TypeError as e:
        return x + 1, type(e).__name__
    except Needs:
        return x - 1, "needs"


def raise_class_with_default_init(x):
    try:
        raise Coded
    except Coded as e:
        return x + e.code, e.args


def raise_from_class_with_default_init(x):
    try:
        raise ValueError("v") from Coded
    except ValueError as e:
        return x + e.__cause__.code, e.__cause__.args


def raise_exception_group_class(x):
    try:
        raise ExceptionGroup
    except TypeError as e:
        return x + 1, str(e)


class Plain(ValueError):
    pass


def keywords_refused_by_builtin_constructor(x):
    try:
        BaseException(code=3)
    except TypeError as e:
        first = str(e)
    try:
        raise Plain("m", code=1)
    except TypeError as e:
        return x + 2, first, str(e)


@pytest.mark.parametrize("fn", [keywords_refused_by_builtin_constructor, raise_class_needing_argument, raise_class_with_default_init,
                                raise_from_class_with_default_init, raise_exception_group_class],
                         ids=lambda fn: fn.__name__)
def test_raised_class_is_called_in_one_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0, stats
    report = loom.explain(fn)(torch.arange(3.0))
    assert report.graph_count == 1 and report.graph_break_count == 0, report.breaks


def test_second_call_does_not_recompile():
    loom.reset()
    compiled = loom.compile(raise_class_needing_argument)
    first = compiled(torch.arange(3.0))
    graphs = loom.stats()["graphs"]
    second = compiled(torch.arange(3.0))
    assert first[1] == second[1] == "TypeError"
    assert loom.stats()["graphs"] == graphs
