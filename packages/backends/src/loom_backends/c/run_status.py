"""The status a C entry point returns, read by the generated host code (a module light enough for a process
that loads compiled graphs from the cache: no lowering, no sympy)."""

from __future__ import annotations


def raise_run_status(status: int) -> None:
    """Raise eager's error for the nonzero status an entry point returned: bit 0 an integer division by zero,
    bit 1 an index out of the range it indexes (``embedding``, ``index_select``, advanced indexing), bit 2 one
    out of range in a ``gather`` (``codegen.INDEX_ERRORS``, shifted by one)."""
    if status & 1:
        raise RuntimeError("ZeroDivisionError")
    if status & 2:
        raise IndexError("index out of range in self")
    raise RuntimeError("index out of bounds in gather")
