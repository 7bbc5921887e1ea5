"""``tensor._base`` in the trace: the view's base as eager has it (one object: ``is`` holds), for views made in the
graph, views of graph inputs and graph inputs themselves (their real ``_base``, guarded)."""

from __future__ import annotations

import pytest
import torch

import loom


def _views_made_in_graph(x):
    t = x.clone()
    a = t.view(3, 1)
    b = a.view(1, 3)
    return b._base is t, a._base is t, t._base is None, b + 1


def _views_of_the_input(x):
    v = x[1:]
    return v._base is x, v[0:1]._base is x, v * 2


def _returned_base(x):
    return (x * 2).view(3, 1)._base


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c"])
@pytest.mark.parametrize("fn", [_views_made_in_graph, _views_of_the_input, _returned_base])
def test_bases_are_eager_s(backend, fn):
    loom.reset()
    got = loom.compile(fn, backend=backend, options={"strict": True})(torch.arange(3.0))
    expected = fn(torch.arange(3.0))
    for g, e in zip(got if isinstance(got, tuple) else (got,), expected if isinstance(expected, tuple) else (expected,)):
        assert torch.equal(g, e) if isinstance(e, torch.Tensor) else g == e
    assert loom.explain(fn)(torch.arange(3.0)).graph_break_count == 0


def test_an_input_s_base_is_read_and_guarded():
    def f(x):
        return x + 1, x._base is None

    loom.reset()
    compiled = loom.compile(f, backend="eager", options={"strict": True})
    assert compiled(torch.arange(3.0))[1] is True
    assert compiled(torch.arange(6.0)[3:])[1] is False  # a view now: the guard fails, and it compiles again
    assert compiled(torch.arange(3.0))[1] is True
    assert loom.stats()["graph_breaks"] == 0
