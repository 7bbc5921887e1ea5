"""``gen.gi_code`` of a generator made while tracing (``variables/generators.py``): its function's code object.
Before, "attribute 'gi_code' of generator ...: the translator cannot read it", a graph break."""

import contextlib
import io

import torch

import loom


def _program(x):
    def counting(n):
        yield n

    g = counting(2)
    code = g.gi_code
    return x + code.co_argcount, code.co_name, code is counting.__code__, next(g)


def test_gi_code_in_one_graph():
    x = torch.randn(3)
    want = _program(x)
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(_program)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_program, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1:] == want[1:]
