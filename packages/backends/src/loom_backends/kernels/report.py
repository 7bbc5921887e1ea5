"""What a compiled graph says about itself, the same for every code generator: one :class:`KernelInfo` per
generated kernel, one :class:`ExternInfo` per ATen call, kernel names, and the ``output_code`` log channel."""

from __future__ import annotations

import logging
import os
from dataclasses import dataclass
from typing import Any

from . import symbols
from .graph import GraphLowering
from .scheduler import FusedKernel

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



def kernel_info(kernel: FusedKernel, src: Any, graph: GraphLowering) -> KernelInfo:
    """The KernelInfo of ``kernel`` generated as ``src`` (any code generator's kernel source)."""
    reads = [n for n in src.args if n not in src.outputs]

    def at_traced_sizes(expr: Any) -> int:  # symbolic sizes: the value at the sizes that were traced
        return int(graph.sizevars.hint(expr) or 0)

    def nbytes(name: str) -> int:
        return at_traced_sizes(graph.buffers[name].nbytes())

    return KernelInfo(
        name=src.name,
        kind=src.kind,
        source=src.source,
        ops=fused_ops(kernel),
        buffers=tuple(n.name for n in kernel.nodes),
        stored=tuple(src.outputs),
        bytes_read=sum(nbytes(n) for n in reads),
        bytes_written=sum(nbytes(n) for n in src.outputs),
        xnumel=at_traced_sizes(src.xnumel),
        rnumel=at_traced_sizes(src.rnumel) or 1,
        xnumel_expr=symbols.texpr(src.xnumel),
        rnumel_expr=symbols.texpr(src.rnumel),
    )


def kernel_name(kernel: FusedKernel, index: int, persistent: bool) -> str:
    """``loom_<kind>_<ops fused>_<n>``: e.g. ``loom_red_amax_sub_exp_sum_div_3``."""
    kind = "poi" if not kernel.is_reduction else ("per" if persistent else "red")
    ops: dict[str, None] = {}
    for node in kernel.nodes:
        for origin in node.origins:
            ops.setdefault(origin.replace(".", "_"), None)
    names = [o for o in ops if o.isidentifier()]
    if len(names) > 6:
        names = [*names[:6], "etc"]
    return "_".join(["loom", kind, *names, str(index)])


def fused_ops(kernel: FusedKernel) -> tuple[str, ...]:
    ops: dict[str, None] = {}
    for node in kernel.nodes:
        for origin in node.origins:
            ops.setdefault(origin, None)
    return tuple(ops)


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
