"""``fn.__kwdefaults__`` of a function made inside the compiled frame (``variables/nested_functions.py``).

Before, reading it was a graph break ("not modelled"). Now the read makes one dict, as CPython's function holds
one: changes the program makes to it are what later calls use, and the function rebuilt after the graph holds
that very dict. A function with no keyword-only defaults gives None.
"""

import contextlib
import io

import torch

import loom


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _changed_then_called(x):
    def f(t, *, k=3, j=1):
        return t * k + j

    kd = f.__kwdefaults__
    kd["k"] = 10
    first = f(x)
    del kd["j"]
    try:
        f(x)
        missing = 0
    except TypeError:
        missing = 1
    return first, missing, f.__kwdefaults__ is kd, kd


def _handed_out(x):
    def f(t, *, k=3):
        return t * k

    f.__kwdefaults__["k"] = 5
    return x + 1, f, f.__kwdefaults__


def _none_without_keyword_only(x):
    def f(t, k=3):
        return t * k

    return f(x), f.__kwdefaults__


def test_changes_to_read_kwdefaults_are_what_calls_use():
    x = torch.randn(4)
    want = _changed_then_called(x)
    report = _explain(_changed_then_called, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    compiled = loom.compile(_changed_then_called, backend="eager")
    for _ in range(2):
        got = compiled(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1:] == want[1:] == (1, True, {"k": 10})
    assert loom.stats()["recompiles"] == 0


def test_function_rebuilt_after_graph_holds_the_same_dict():
    x = torch.randn(3)
    report = _explain(_handed_out, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    _, f, kd = loom.compile(_handed_out, backend="eager")(x)
    assert f.__kwdefaults__ is kd and kd == {"k": 5}
    torch.testing.assert_close(f(x), x * 5)


def test_no_keyword_only_defaults_reads_none():
    x = torch.randn(3)
    report = _explain(_none_without_keyword_only, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_none_without_keyword_only, backend="eager")(x)
    torch.testing.assert_close(got[0], x * 3)
    assert got[1] is None
