"""``f(**{1: 2})``: a ``**`` mapping with a key that is not a string (``opcodes/calls.py``).

Before, the trace raised TypeError("keywords must be strings") whatever the callee, but a C callee checks the
keys itself: torch's argument parser raises RuntimeError, so ``except TypeError`` around ``torch.add(**d)``
caught in loom what eager does not (a wrong answer). Now a Python function (or a method bound to one) raises
CPython's TypeError with its message known to the trace; any other callee is a graph break, where the real
call raises its own error.
"""

import contextlib
import io

import torch

import loom


def _explain(fn, *args):
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        return loom.explain(fn)(*args)


def _torch_callee(x):
    try:
        torch.add(**{1: 2})
        caught = "none"
    except TypeError:
        caught = "TypeError"
    except RuntimeError:
        caught = "RuntimeError"
    return x + 1, caught


def _python_callee(x):
    def f(**kw):
        return kw

    class Holder:
        def m(self, **kw):
            return kw

    messages = []
    for call in (lambda: f(**{1: 2}), lambda: Holder().m(**{(1,): 2})):
        try:
            call()
        except TypeError as e:
            messages.append(str(e))
    return x * len(messages), messages


def test_c_callee_raises_its_own_error():
    x = torch.randn(3)
    want = _torch_callee(x)
    assert want[1] == "RuntimeError"
    report = _explain(_torch_callee, x)
    assert report.graph_break_count == 1 and "not a string" in report.breaks[0].what
    loom.reset()
    got = loom.compile(_torch_callee, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]


def test_python_callee_type_error_message_in_graph():
    x = torch.randn(3)
    want = _python_callee(x)
    report = _explain(_python_callee, x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_python_callee, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1] == ["keywords must be strings"] * 2
