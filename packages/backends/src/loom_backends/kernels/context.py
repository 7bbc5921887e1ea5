"""What a lowering rule needs from the graph being lowered, without importing the graph module.

The rules in ``lowering/`` reach the graph being lowered through :func:`current` and refuse arguments by
raising :class:`Unsupported`; ``graph.py`` imports the rules. Keeping these here (below both) is what
keeps the lowering and the graph free of an import cycle.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .graph import GraphLowering

_state = threading.local()


class Unsupported(Exception):
    """A rule cannot lower these arguments: the node runs as an extern ATen call instead."""


class GraphUnsupported(Exception):
    """The whole graph cannot use generated kernels here (e.g. symbolic shapes, devices)."""


def current() -> GraphLowering:
    """The graph being lowered on this thread."""
    graph = getattr(_state, "graph", None)
    if graph is None:
        raise RuntimeError("no graph is being lowered")
    return graph


@contextlib.contextmanager
def lowering(graph: GraphLowering) -> Iterator[GraphLowering]:
    """Make ``graph`` the one :func:`current` returns while the block runs."""
    previous = getattr(_state, "graph", None)
    _state.graph = graph
    try:
        yield graph
    finally:
        _state.graph = previous
