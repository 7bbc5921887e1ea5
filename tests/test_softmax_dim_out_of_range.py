"""``softmax`` / ``log_softmax`` with a ``dim`` out of range inside ``try`` (``fake_rules.CHECKS``).

PyTorch's fake path for ``aten._softmax`` does not check ``dim``, so the trace saw no error: the handler never
ran and the compiled function returned what the ``try`` fell through to (eager raises IndexError there). Now the
check eager makes raises the same IndexError while tracing, and the handler runs in the graph.
"""

import contextlib
import io

import pytest
import torch

import loom


def _caught(x):
    out = []
    for op in (lambda: x.softmax(dim=5), lambda: torch.log_softmax(x, -4), lambda: x.sum().softmax(2)):
        try:
            op()
            out.append(None)
        except IndexError as e:
            out.append(str(e))
    return x + 1, out


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_out_of_range_dim_raises_in_the_trace_as_in_eager(shape):
    x = torch.randn(shape)
    want = _caught(x)
    assert all(m is not None for m in want[1])
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(_caught)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_caught, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]


def test_a_dim_in_range_still_runs():
    def program(x):
        return x.softmax(-1), x.log_softmax(0)

    x = torch.randn(2, 3)
    loom.reset()
    got = loom.compile(program, backend="eager")(x)
    torch.testing.assert_close(got, program(x))
