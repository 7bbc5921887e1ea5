"""``record_function(name)`` used as a decorator inside compiled code (``@record_function("r")`` on a local
function, ``record_function("r")(fn)``): calls of the decorated function are inlined as the ``with`` form's body
is (a nullcontext under compilation, as torch.compile's default), one graph; a decorated function that escapes
is rebuilt as a real decorated one; a break inside its body still gives eager's values."""

from __future__ import annotations

import torch
from torch.autograd.profiler import record_function

import loom


def decorated_locally(x):
    @record_function("h11_region")
    def g(t):
        return t * 3
    return g(x) + g(x + 1)


def decorated_by_call(x):
    g = torch.profiler.record_function("h11_call", "extra")(lambda t: t.sin())
    return g(x) * 2


def returns_the_decorated(x):
    g = record_function("h11_out")(lambda t: t - 1)
    return g(x), g


def breaks_inside(x):
    @record_function("h11_break")
    def g(t):
        print("inside")
        return t + 1
    return g(x) * 2


def run(fn, x):
    loom.reset()
    report = loom.explain(fn, backend="eager")(x)
    loom.reset()
    return report, loom.compile(fn, backend="eager")(x)


def test_decorated_function_is_inlined_into_one_graph():
    for fn in (decorated_locally, decorated_by_call):
        x = torch.arange(3.0)
        report, got = run(fn, x)
        assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
        torch.testing.assert_close(got, fn(x))


def test_escaping_decorated_function_is_a_real_decorated_function():
    x = torch.arange(3.0)
    report, (value, g) = run(returns_the_decorated, x)
    assert report.graph_break_count == 0, report.breaks
    torch.testing.assert_close(value, x - 1)
    torch.testing.assert_close(g(x), x - 1)


def test_break_inside_decorated_function_keeps_eagers_values(capsys):
    x = torch.arange(3.0)
    _, got = run(breaks_inside, x)
    torch.testing.assert_close(got, (x + 1) * 2)
    assert "inside" in capsys.readouterr().out
