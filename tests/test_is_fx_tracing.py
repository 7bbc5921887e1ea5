"""``torch.fx._symbolic_trace.is_fx_tracing()`` inside a compiled function: traced without a break, answering False
outside ``fx.symbolic_trace``, as torch.compile does (graphs and breaks compared with ``torch._dynamo.explain``)."""

from __future__ import annotations

import torch
import torch._dynamo
import torch.fx._symbolic_trace as symbolic_trace
from breaks_harness import compare

import loom


def asks_fx(x):
    if torch.fx._symbolic_trace.is_fx_tracing():
        return x + 1
    return x * 2 + symbolic_trace.is_fx_tracing()


def test_is_fx_tracing_is_one_graph_like_torch_compile():
    stats = compare(asks_fx, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
    report = loom.explain(asks_fx)(torch.arange(3.0))
    torch._dynamo.reset()
    try:
        expected = torch._dynamo.explain(asks_fx)(torch.arange(3.0))
    finally:
        torch._dynamo.reset()
    assert (len(report.graphs), len(report.breaks)) == (expected.graph_count, expected.graph_break_count) == (1, 0)
