"""Graphs that give an input other storage (``set_``, which ``p.data = t`` records): every backend that runs
AOTAutograd returns what eager returns, views taken before the replacement included."""

from __future__ import annotations

import pytest
import torch

import loom_backends

BACKENDS = ["aot_eager", "c"]


def _view_then_replace(p, t):
    v = p.view(2, 2)
    p.set_(t)
    return v, p + 1


def _sliced_view_then_replace(p, t):
    v = p[1:]
    p.set_(t)
    return v, p * 2


def _replace_then_view(p, t):
    p.set_(t)
    return p.view(2, 2), p + 1


def _run(backend, fn):
    p, t = torch.arange(4.0), torch.arange(10.0, 14.0)
    expected = fn(p.clone(), t.clone())
    compiled = loom_backends.get(backend)(torch.fx.symbolic_trace(fn), [p.clone(), t.clone()])
    got = compiled(p.clone(), t.clone())
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)
    return compiled


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_view_then_replace, _sliced_view_then_replace], ids=["view", "slice"])
def test_a_view_taken_before_set_keeps_viewing_the_old_storage(backend, fn):
    # AOTAutograd rebuilds an output aliasing an input from that input after the graph: p's new storage
    compiled = _run(backend, fn)
    assert compiled.graphs == []  # runs as captured


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_view_taken_after_set_still_goes_through_aot_autograd(backend):
    compiled = _run(backend, _replace_then_view)
    assert compiled.graphs


def test_the_check_reads_the_capture_s_fakes_when_it_recorded_them():
    from torch._subclasses.fake_tensor import FakeTensorMode

    from loom_backends.graphs import returns_view_of_replaced_input

    gm = torch.fx.symbolic_trace(_view_then_replace)
    mode = FakeTensorMode()
    p, t = mode.from_tensor(torch.zeros(4)), mode.from_tensor(torch.ones(4))
    with mode:
        values = {"p": p, "t": t}
        view = p.view(2, 2)
        p.set_(t)
        values.update(view=view, set_=p, add=p + 1)
    for node in gm.graph.nodes:
        if node.name in values:
            node.meta["val"] = values[node.name]
    assert returns_view_of_replaced_input(gm, [torch.zeros(4), torch.ones(4)])
    del gm.graph.find_nodes(op="placeholder")[0].meta["val"]  # no capture fakes: it propagates its own
    assert returns_view_of_replaced_input(gm, [torch.zeros(4), torch.ones(4)])


def _hand_on_then_replace(t, p, z):
    p.set_(t)  # p takes t's storage...
    t.set_(z)  # ...and keeps it when t gets other storage
    return p + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_storage_handed_on_and_then_replaced_stays_with_the_tensor_it_was_handed_to(backend):
    # AOTAutograd replays the inputs' storage changes input by input after the graph: t's first, then p.set_(t)
    t, p, z = torch.arange(4.0), torch.ones(4), torch.zeros(2)
    expected = _hand_on_then_replace(t.clone(), p.clone(), z)
    compiled = loom_backends.get(backend)(torch.fx.symbolic_trace(_hand_on_then_replace), [t.clone(), p.clone(), z])
    t_got, p_got = t.clone(), p.clone()
    torch.testing.assert_close(compiled(t_got, p_got, z), expected)
    torch.testing.assert_close(p_got, torch.arange(4.0))
    assert t_got.shape == (2,)
    assert compiled.graphs == []  # runs as captured


def _grow_then_write(x, y):
    y.resize_(3)  # what an out= op's resize of an empty input is recorded as
    return torch.cosh(x, out=y) + 1


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_graph_resizing_an_input_runs_as_captured(backend):
    x = torch.arange(3.0)
    y_eager, y_got = torch.empty(0), torch.empty(0)
    expected = _grow_then_write(x, y_eager)
    compiled = loom_backends.get(backend)(torch.fx.symbolic_trace(_grow_then_write), [x, torch.empty(0)])
    torch.testing.assert_close(compiled(x, y_got), expected)
    torch.testing.assert_close(y_got, y_eager)
    assert compiled.graphs == []
