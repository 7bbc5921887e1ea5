"""``__import__`` of a module already imported answers from ``sys.modules`` as an import statement does (one
graph), and ``sys.getrecursionlimit()`` folds to its answer guarded by asking again (a changed limit
recompiles, never a stale answer); before, each was a graph break."""

from __future__ import annotations

import sys

import torch

import loom


def imports_by_call(x):
    m = __import__("math")
    p = __import__("os.path", fromlist=["join"])
    top = __import__("os.path")
    return x + m.gcd(4, 6) + len(p.__name__) + len(top.__name__)


def imports_relative_by_call(x):
    return x + len(__import__("path", globals(), None, ["join"], 1).__name__)


def imports_missing_module(x):
    return x + len(__import__("no_such_module_for_loom_tests").__name__)


def recursion_limited(x):
    return x + (sys.getrecursionlimit() > 10) + sys.getrecursionlimit() % 7


def test_import_call_of_a_loaded_module_is_one_graph():
    x = torch.arange(3.0)
    report = loom.explain(imports_by_call)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), [b.what for b in report.breaks]
    compiled = loom.compile(imports_by_call, backend="eager")
    assert torch.equal(compiled(x), imports_by_call(x))
    assert torch.equal(compiled(x), imports_by_call(x))
    assert loom.stats()["recompiles"] == 0


def test_import_call_that_eager_refuses_raises_the_same():
    x = torch.arange(3.0)
    for fn, error in ((imports_missing_module, ModuleNotFoundError), (imports_relative_by_call, ImportError)):
        raised = []
        for run in (fn, loom.compile(fn, backend="eager")):
            try:
                run(x)
            except error as exc:
                raised.append(type(exc))
        assert len(raised) == 2 and raised[0] is raised[1], fn.__name__


def test_recursion_limit_is_folded_and_guarded():
    x = torch.arange(3.0)
    report = loom.explain(recursion_limited)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), [b.what for b in report.breaks]
    loom.reset()
    compiled = loom.compile(recursion_limited, backend="eager")
    before = sys.getrecursionlimit()
    try:
        assert torch.equal(compiled(x), recursion_limited(x))
        assert torch.equal(compiled(x), recursion_limited(x))
        assert loom.stats()["recompiles"] == 0
        sys.setrecursionlimit(before + 3)
        assert torch.equal(compiled(x), recursion_limited(x))  # the guard saw the new limit
        assert loom.stats()["recompiles"] == 1
    finally:
        sys.setrecursionlimit(before)
