"""``torch.fx._symbolic_trace.is_fx_tracing()``, which libraries ask to pick an FX-traceable code path: the original
logs a warning first (once per process, through ``logging``, which a trace cannot hold: a graph break), then
answers the module's flag. The stand-in answers the flag alone; torch.compile answers False, as the flag is while
no ``fx.symbolic_trace`` runs."""

from __future__ import annotations

import torch.fx._symbolic_trace as _symbolic_trace

from .registry import polyfill


@polyfill(_symbolic_trace.is_fx_tracing)
def is_fx_tracing() -> bool:
    """``is_fx_tracing()`` without its warning: whether ``torch.fx.symbolic_trace`` is tracing now."""
    return _symbolic_trace._is_fx_tracing_flag
