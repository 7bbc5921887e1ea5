"""Grad-mode switches that change nothing cost no graph (issue 29, context managers): a ``no_grad`` or
``set_grad_enabled`` block whose body breaks at once left a graph holding only the switch in and the switch
back; torch.compile makes none. Answers and the grad mode left behind stay eager's."""

from __future__ import annotations

import io

import pytest
import torch
from torch import fx

import loom
from loom_symbolic import grad_switches
from loom_symbolic.variables import inference_mode

_SINK = io.StringIO()
_W = torch.ones(3, requires_grad=True)


def breaks_at_once(x):
    with torch.no_grad():
        print("break", file=_SINK)
        y = x * _W
    return y, y.requires_grad, torch.is_grad_enabled()


def nested_breaks_at_once(x):
    with torch.set_grad_enabled(False):
        print("break", file=_SINK)
        with torch.set_grad_enabled(True):
            y = x * _W
            print("break", file=_SINK)
            y = y + 1
    return y, y.requires_grad, torch.is_grad_enabled()


def works_then_breaks(x):
    with torch.no_grad():
        y = x * _W
        print("break", file=_SINK)
    return y, y.requires_grad, x * _W


@pytest.mark.parametrize(("fn", "graphs", "breaks"),
                         [(breaks_at_once, 1, 1), (nested_breaks_at_once, 2, 2), (works_then_breaks, 2, 1)])
def test_a_block_that_breaks_at_once_costs_no_graph(fn, graphs, breaks):
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    expected = fn(x)
    for _ in range(2):
        actual = compiled(x)
        assert torch.is_grad_enabled()
        assert str(actual) == str(expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats


def _graph(*targets):
    graph = fx.Graph()
    x = graph.placeholder("x")
    last = None
    for target in targets:
        if target == "op":
            last = graph.call_function(torch.sin, (x,))
        elif isinstance(target, bool):
            graph.call_function(torch._C._set_grad_enabled, (target,))
        else:
            last = graph.call_function(target, (True,))
    graph.output(last)
    return graph


def _switches(graph):
    return [n.args[0] for n in graph.nodes if n.target is torch._C._set_grad_enabled]


def test_only_switches_that_change_the_mode_in_force_are_kept():
    graph = _graph(False, True, "op", False, False, "op", True)
    grad_switches.drop_idle_switches(graph, True, ())
    assert _switches(graph) == [False, True]
    # after an inference-mode region's node the mode is unknown: the switch back stays
    graph = _graph(torch.autograd.grad_mode._enter_inference_mode, True)
    grad_switches.drop_idle_switches(graph, True, inference_mode.STATE_SWITCHES)
    assert _switches(graph) == [True]
