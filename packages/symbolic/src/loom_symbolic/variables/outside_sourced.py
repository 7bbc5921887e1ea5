"""What every iterator from outside the frame shares: the real object, loaded from its source, is where it
stands. After the graph's effects moved it as far as the trace did, a loop or a name live across a graph break
goes on with the real object itself, and reconstructing it loads it again."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any


class SourcedIterator:
    """Mixin for an iterator variable with a ``source``: its live position, and its reconstruction, are the
    real object."""

    source: Any

    def live_position(self) -> tuple[Callable[..., None], int]:
        """The real iterator, moved by the effects before the resumed code runs (``iter`` of it is itself)."""
        return (lambda codegen: codegen.load_source(self.source)), 0

    def hands_on_itself(self) -> bool:
        return True

    def reconstruct(self, codegen) -> None:
        codegen.load_source(self.source)
