"""``torch.autograd.forward_ad.dual_level()`` blocks (issue 29): captured in one graph as torch.compile captures
them (``_enter_dual_level``, ``_make_dual``, ``_unpack_dual``, ``_exit_dual_level`` nodes), with eager's primals
and tangents. A break inside the block runs the frame as ordinary Python (one break); ``make_dual`` outside a
block runs natively and raises as eager does. No forward-AD level is left open, by the trace or the run."""

from __future__ import annotations

import io

import pytest
import torch
from torch.autograd import forward_ad as fwAD

import loom

_SINK = io.StringIO()


def jvp_of_sin(x, v):
    with fwAD.dual_level() as level:
        d = fwAD.make_dual(x, v)
        y = d.sin() * 2
        primal, tangent = fwAD.unpack_dual(y)
        plain = fwAD.unpack_dual(x)
    return primal, tangent, level, plain.tangent is None, type(plain).__name__


def break_inside(x, v):
    with fwAD.dual_level():
        d = fwAD.make_dual(x, v)
        print("break", file=_SINK)
        primal, tangent = fwAD.unpack_dual(d.cos())
    return primal, tangent


def make_dual_outside(x, v):
    return fwAD.make_dual(x, v)


def _outcome(fn, x, v):
    try:
        return fn(x, v)
    except RuntimeError as exc:
        return type(exc), str(exc)


def _no_level_open():
    assert fwAD._current_level == -1
    level = torch._C._enter_dual_level()  # raises if one were left open
    torch._C._exit_dual_level(level=level)
    assert level == 0


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize(("fn", "graphs", "breaks"), [(jvp_of_sin, 1, 0), (break_inside, 0, 1), (make_dual_outside, 0, 1)])
def test_dual_level_blocks_give_eagers_tangents(fn, graphs, breaks, backend):
    x, v = torch.arange(3.0), torch.linspace(0.5, 1.5, 3)
    expected = _outcome(fn, x, v)
    loom.reset()
    compiled = loom.compile(fn, backend=backend)
    for _ in range(2):  # the second call runs what the first compiled
        actual = _outcome(compiled, x, v)
        assert str(actual) == str(expected)
        _no_level_open()
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


def test_the_level_is_entered_and_left_by_the_graph():
    loom.reset()
    report = loom.explain(jvp_of_sin)(torch.arange(3.0), torch.ones(3))
    code = report.graphs[0].graph_module.code
    for name in ("_enter_dual_level", "_make_dual", "_unpack_dual", "_exit_dual_level"):
        assert name in code, code
    _no_level_open()
