"""``torch.fx._symbolic_trace.is_fx_tracing``'s stand-in against the real one, and traced (one graph, no break)."""

from __future__ import annotations

import torch
import torch.fx._symbolic_trace as symbolic_trace

from loom_symbolic import polyfills, translate_function


def test_is_fx_tracing_answers_the_flag_like_the_original(monkeypatch):
    stand_in = polyfills.replacement_for(symbolic_trace.is_fx_tracing)
    assert stand_in() is symbolic_trace.is_fx_tracing() is False
    monkeypatch.setattr(symbolic_trace, "_is_fx_tracing_flag", True)
    assert stand_in() is symbolic_trace.is_fx_tracing() is True


def test_is_fx_tracing_traced_is_one_graph():
    def f(x):
        if torch.fx._symbolic_trace.is_fx_tracing():
            return x + 1
        return x * 2 + symbolic_trace.is_fx_tracing()

    result = translate_function(f, torch.ones(3))
    assert (len(result.graphs), result.breaks) == (1, [])
