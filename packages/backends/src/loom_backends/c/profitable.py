"""When not to generate C: a graph whose kernels would be slower than the ATen ops they replace.

The rule and the measurements behind it are in docs/backends-c.md ("When the C backend does not generate
kernels"): a graph that would be nothing but lone ATen ops, each over little data, runs through ATen.
"""

from __future__ import annotations

from typing import Any

from ..kernels import symbols
from ..kernels.config import config
from ..kernels.scheduler import FusedKernel


def _work(kernel: FusedKernel, graph: Any) -> int | None:
    numel = graph.sizevars.hint(kernel.xnumel * kernel.rnumel)
    return int(numel) if numel is not None else None


def unprofitable_reason(kernels: list[FusedKernel], graph: Any) -> str | None:
    """Why the graph should run through ATen instead of generated kernels, or None to generate them."""
    limit = config.c_min_elements_for_lone_op
    if not kernels or limit <= 0:
        return None
    for kernel in kernels:
        ops = {o for n in kernel.nodes for o in n.origins}
        work = _work(kernel, graph)
        if len(ops) > 1 or work is None or work > limit or symbols.static_int(kernel.xnumel) is None:
            return None
    return f"not profitable: every kernel would be one ATen op over at most {limit} elements (ATen is faster)"
