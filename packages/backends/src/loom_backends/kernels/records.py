"""What a compiled graph records about its kernels and extern calls (:class:`KernelInfo`, :class:`ExternInfo`)
and the ``output_code`` log channel: the part of :mod:`.report` a graph rebuilt from the graph cache needs,
without the lowering and sympy (:mod:`.report` adds what making the records from a scheduled graph needs)."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

output_code_log = logging.getLogger("loom.output_code")


@dataclass(frozen=True)
class KernelInfo:
    """One generated kernel: what it fuses and how many bytes it moves."""

    name: str
    kind: str  # "pointwise", "persistent_reduction" or "reduction"
    source: str
    ops: tuple[str, ...]  # the ATen ops fused into it, in program order
    buffers: tuple[str, ...]  # the IR buffers it computes
    stored: tuple[str, ...]  # those it writes to memory (the others live in registers only)
    bytes_read: int
    bytes_written: int
    xnumel: int
    rnumel: int
    # Over symbolic sizes (dynamic shapes) the numbers above are at the traced sizes; these say what the
    # kernel really iterates over, e.g. "3*s0" (for static sizes, the same numbers as text).
    xnumel_expr: str = ""
    rnumel_expr: str = ""


@dataclass(frozen=True)
class ExternInfo:
    """One extern call to ATen, and why it is not lowered."""

    name: str
    op: str
    reason: str


_logging_configured = False


def configure_logging() -> None:
    """Honour ``LOOM_LOGS=output_code`` (comma-separated, ``all`` too) when nothing configured the logger."""
    global _logging_configured
    if _logging_configured:
        return
    _logging_configured = True
    wanted = {w.strip().lstrip("+") for w in os.environ.get("LOOM_LOGS", "").split(",")}
    if {"output_code", "all"} & wanted and not output_code_log.handlers:
        handler = logging.StreamHandler()
        handler.setFormatter(logging.Formatter("[loom.output_code] %(message)s"))
        output_code_log.addHandler(handler)
        output_code_log.setLevel(logging.DEBUG)


def log_output_code(kind: str, where: Any, source: str) -> None:
    """Log a compiled graph's generated source on ``loom.output_code`` (at DEBUG)."""
    if output_code_log.isEnabledFor(logging.DEBUG):
        output_code_log.debug("graph %s -> %s\n%s", kind, where, source)
