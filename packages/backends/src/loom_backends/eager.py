"""The ``eager`` backend: run the FX graph as it is, with no compilation at all."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from .graphs import check_backend_args


def eager(gm: Any, example_inputs: list[Any]) -> Callable[..., Any]:
    """Return the graph's own ``forward``: the cheapest callable that runs it (no module-call hooks)."""
    check_backend_args(gm, example_inputs)
    return gm.forward
