"""Errors the facade raises."""

from __future__ import annotations

from loom_guards import RecompileLimitWarning
from loom_symbolic import Location, Reason

__all__ = ["BackendCompilerFailed", "GlobalStateChanged", "InternalError", "RecompileLimitError", "RecompileLimitWarning", "Unsupported"]


class Unsupported(RuntimeError):
    """Raised under ``fullgraph=True`` when loom cannot capture a function in one graph.

    ``reason`` (a :class:`loom_symbolic.Reason`) says what broke, why, the user's file:line and a hint;
    ``str(err)`` shows all of it, with the source line.
    """

    def __init__(self, reason: Reason) -> None:
        super().__init__(f"loom cannot capture this in one graph (fullgraph=True): {reason}")
        self.reason = reason

    @property
    def location(self) -> Location | None:
        """Where in the user's code the break happened (file, line, function), when known."""
        return self.reason.location


class InternalError(RuntimeError):
    """A bug in loom itself (raised only under ``fullgraph=True``, ``options={"strict": True}`` or
    ``options={"raise_on_internal_error": True}``; otherwise the frame runs uncompiled, with one warning).

    The original exception is the ``__cause__``.
    """


class GlobalStateChanged(InternalError):
    """A compile changed global state (grad mode, a mode stack, an RNG state...): a bug in loom, raised
    only in the check mode (``LOOM_CHECK_STATE=1``, on in loom's tests). The state has been put back where
    it could be; ``changes`` lists what changed (``loom.global_state.Change`` records)."""

    def __init__(self, message: str, changes: list) -> None:
        super().__init__(message)
        self.changes = changes


class RecompileLimitError(RuntimeError):
    """Raised under ``fullgraph=True`` when a function would be compiled more often than the recompile limit.

    Without ``fullgraph`` the function runs uncompiled instead, with one :class:`RecompileLimitWarning`.
    """


class BackendCompilerFailed(RuntimeError):
    """The backend given to ``loom.compile`` failed on a captured graph: it raised, or returned
    something that is not a callable.

    Raised only under ``fullgraph=True``, ``options={"strict": True}`` or
    ``options={"suppress_backend_errors": False}``; otherwise the frame runs uncompiled, with one warning.
    ``backend_name`` names the backend, ``graph_name`` the graph it was given; when the backend
    raised, its exception is the ``__cause__``.
    """

    def __init__(self, backend_name: str, what: str, graph_name: str, where: str) -> None:
        super().__init__(
            f"loom: backend {backend_name!r} failed on graph {graph_name} of {where}: it {what}. A backend is "
            "backend(gm, example_inputs) -> callable. This raises under fullgraph=True or options={'strict': True} "
            "(or suppress_backend_errors=False); otherwise such a frame runs uncompiled, with one warning"
        )
        self.backend_name = backend_name
        self.graph_name = graph_name
        self.what = what
        self.where = where
