"""Errors the facade raises."""

from __future__ import annotations

from loom_symbolic import Reason


class Unsupported(RuntimeError):
    """Raised under ``fullgraph=True`` when loom cannot capture a function in one graph.

    ``reason`` says what broke, why, the user's file:line and a hint.
    """

    def __init__(self, reason: Reason) -> None:
        super().__init__(str(reason))
        self.reason = reason


class InternalError(RuntimeError):
    """A bug in loom itself (raised only with ``options={"raise_on_internal_error": True}``)."""
