"""Errors the facade raises."""

from __future__ import annotations

from loom_guards import RecompileLimitWarning
from loom_symbolic import Location, Reason

__all__ = ["InternalError", "RecompileLimitError", "RecompileLimitWarning", "Unsupported"]


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
    """A bug in loom itself (raised only with ``options={"raise_on_internal_error": True}``).

    The original exception is the ``__cause__``.
    """


class RecompileLimitError(RuntimeError):
    """Raised under ``fullgraph=True`` when a function would be compiled more often than the recompile limit.

    Without ``fullgraph`` the function runs uncompiled instead, with one :class:`RecompileLimitWarning`.
    """
