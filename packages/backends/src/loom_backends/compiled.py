"""What a backend returns: a callable that also says what it compiled.

Every built-in backend except ``eager`` returns a :class:`CompiledFunction`. Its ``graphs`` fill in as
AOTAutograd compiles them (the backward graph when the first backward runs); ``kernels`` and ``externs``
gather what the ``triton`` backend generated for each of them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


@dataclass
class GraphArtifact:
    """One graph a backend compiled: ``kind`` is ``"forward"``, ``"backward"`` or ``"inference"``."""

    kind: str
    graph_module: Any  # torch.fx.GraphModule: the ATen graph AOTAutograd handed over
    compiled: Any  # the callable that runs it (for ``triton`` a ``TritonGraph``)

    @property
    def kernels(self) -> list[Any]:
        return list(getattr(self.compiled, "kernels", []))

    @property
    def externs(self) -> list[Any]:
        return list(getattr(self.compiled, "externs", []))


@dataclass(eq=False)
class CompiledFunction:
    """A compiled graph: call it like the graph; inspect ``graphs``, ``kernels`` and ``externs``.

    ``cache_key``: a key under which ``loom_backends.reload(backend, key)`` gives this compiled function
    back in another process (from the disk caches alone: no capture, no tracing); the entry may be stored
    only later (a training graph's at its first backward). None when the backend's caches do not serve
    this graph."""

    backend: str
    fn: Callable[..., Any]
    graphs: list[GraphArtifact] = field(default_factory=list)
    cache_key: str | None = None

    def __call__(self, *args: Any) -> Any:
        return self.fn(*args)

    def graph(self, kind: str) -> GraphArtifact:
        """The last compiled graph of a kind (``"forward"``, ``"backward"``, ``"inference"``)."""
        for artifact in reversed(self.graphs):
            if artifact.kind == kind:
                return artifact
        have = sorted({a.kind for a in self.graphs})
        raise LookupError(f"no {kind!r} graph compiled yet (have: {', '.join(have) or 'none'})")

    @property
    def kernels(self) -> list[Any]:
        """Every generated kernel, across the compiled graphs, in launch order."""
        return [k for g in self.graphs for k in g.kernels]

    @property
    def externs(self) -> list[Any]:
        """Every extern ATen call, across the compiled graphs."""
        return [e for g in self.graphs for e in g.externs]

    def __repr__(self) -> str:
        kinds = ", ".join(g.kind for g in self.graphs) or "nothing yet"
        return f"<loom CompiledFunction backend={self.backend!r} graphs: {kinds}>"
