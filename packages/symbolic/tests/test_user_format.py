"""``format(obj, spec)`` and ``f"{obj:spec}"`` on an object whose class writes ``__format__`` in Python: the method
is inlined (it is asked even without a spec, before ``__str__``), and a result that is not a string raises
CPython's TypeError. Both broke the graph before."""

import pytest
import torch
from harness import check


class _Tagged:
    def __format__(self, spec):
        return "T" + spec

    def __str__(self):
        return "never asked by format"


class _BadFormat:
    def __format__(self, spec):
        return 3


def _formatted(x):
    t = _Tagged()
    return x + 1, format(t, "ab"), format(t), f"{t:xy}", f"{t}", f"{t!s}"


def test_python_format_dunder_is_inlined():
    check(_formatted, torch.ones(3))


def _bad(x):
    try:
        format(_BadFormat(), "")
        caught = ""
    except TypeError as exc:
        caught = str(exc)
    return x * 2, caught


def test_format_dunder_returning_non_string_raises_typeerror():
    check(_bad, torch.ones(3))


def test_format_dunder_counts_one_graph_under_compile():
    loom = pytest.importorskip("loom", reason="compiles through the loom facade")
    loom.reset()
    x = torch.ones(3)
    result = loom.compile(_formatted, backend="eager")(x)
    assert result[1:] == _formatted(x)[1:]
    assert loom.stats()["graphs"] == 1 and loom.stats()["graph_breaks"] == 0
