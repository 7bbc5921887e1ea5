"""Functions torch.compile is told to leave alone (``torch.compiler.disable``, ``torch._dynamo.disable``,
and torch's own ``torch._disable_dynamo`` around a higher order operator's eager call) run uncompiled
under loom too, with everything they call; the ``recursive=False`` form leaves only the function's own
frame alone. Before, the call was a graph break and then loom compiled the disabled function's frames."""

from __future__ import annotations

import io

import torch
from torch._higher_order_ops.wrap import wrap

import loom


def _inner(x):
    return x.sin() + 1


@torch.compiler.disable
def _disabled(x):
    return _inner(x) * 2


@torch._dynamo.disable(recursive=False)
def _disabled_alone(x):
    return _inner(x) * 3


def _run(fn, x):
    loom.reset()
    out = loom.compile(fn, backend="eager")(x)
    return out, loom.stats()


def test_disabled_function_and_its_callees_run_uncompiled():
    x = torch.ones(3)
    out, stats = _run(lambda t: _disabled(t + 1) - 1, x)
    torch.testing.assert_close(out, _disabled(x + 1) - 1)
    assert (stats["graphs"], stats["graph_breaks"], stats["frames_compiled"]) == (2, 1, 2), stats


def test_non_recursive_disable_compiles_the_callees():
    x = torch.ones(3)
    out, stats = _run(lambda t: _disabled_alone(t + 1) - 1, x)
    torch.testing.assert_close(out, _disabled_alone(x + 1) - 1)
    assert (stats["graphs"], stats["frames_compiled"]) == (3, 3), stats  # the lambda's two, _inner's


def test_loom_compiled_function_inside_a_disabled_one_is_compiled():
    compiled_inner = loom.compile(_inner, backend="eager")

    @torch.compiler.disable
    def calls_compiled(x):
        return compiled_inner(x) * 2

    loom.reset()
    out = calls_compiled(torch.ones(3))
    torch.testing.assert_close(out, (torch.ones(3).sin() + 1) * 2)
    assert loom.stats()["graphs"] == 1


def test_wrap_body_that_breaks_runs_as_eager_runs_it():
    sink = io.StringIO()

    def body(t):
        print("inside", t, file=sink)  # a tensor printed: a break (a print of constants is made after the graph)
        return t * 2

    out, stats = _run(lambda t: wrap(body, t) + 1, torch.ones(3))
    torch.testing.assert_close(out, torch.ones(3) * 2 + 1)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 1), stats
