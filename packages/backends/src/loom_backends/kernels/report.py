"""What a compiled graph says about itself, the same for every code generator: one :class:`KernelInfo` per
generated kernel, one :class:`ExternInfo` per ATen call, kernel names, and the ``output_code`` log channel."""

from __future__ import annotations

from typing import Any

from . import symbols
from .graph import GraphLowering
from .records import ExternInfo, KernelInfo, configure_logging, log_output_code, output_code_log
from .scheduler import FusedKernel

__all__ = ["ExternInfo", "KernelInfo", "configure_logging", "fused_ops", "kernel_info", "kernel_name",
           "log_output_code", "output_code_log"]

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
