"""``p.data = t`` after a view of ``p`` was taken: the view keeps ``p``'s old storage, as in eager, under every
backend (AOTAutograd alone would rebuild the returned view from ``p``'s new storage)."""

from __future__ import annotations

import pytest
import torch

import loom


def _view_then_data(p, t):
    v = p.view(2, 2)
    p.data = t
    return v, p + 1


def _param_view_then_data(p, t):
    first = p[0]
    p.data = t * 2
    return first, (p * 3).sum()


@pytest.mark.parametrize("backend", ["eager", "aot_eager", "c", None])
@pytest.mark.parametrize("fn", [_view_then_data, _param_view_then_data])
def test_a_view_taken_before_the_data_is_replaced_keeps_the_old_values(backend, fn):
    loom.reset()
    compiled = loom.compile(fn, backend=backend, options={"strict": True}) if backend else loom.compile(fn)
    p, t = torch.arange(4.0), torch.arange(10.0, 14.0)
    want_p, got_p = p.clone(), p.clone()
    expected = fn(want_p, t.clone())
    got = compiled(got_p, t.clone())
    for g, e in zip(got, expected):
        torch.testing.assert_close(g, e)
    torch.testing.assert_close(got_p, want_p)
    report = loom.explain(fn, backend=backend or "eager")(p.clone(), t.clone())
    assert (report.graph_count, report.break_count) == (1, 0)
