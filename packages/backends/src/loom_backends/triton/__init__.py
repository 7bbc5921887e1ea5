"""The ``triton`` backend: AOTAutograd, core ATen decompositions, then loom's lowering, fusion and codegen.

Pipeline for each ATen graph AOTAutograd hands over (forward, backward or inference):
``graph.py`` (lower each node with the rules in ``lowering/`` into the IR of ``ir.py``) →
``scheduler.py`` (group buffers into kernels) → ``codegen.py`` (Triton source per kernel) →
``wrapper.py`` (the host code) → ``runtime.py`` (cache on disk by hash, import, launch).
Without a GPU the kernels run under Triton's interpreter (``device.py`` sets ``TRITON_INTERPRET=1``).
"""

from __future__ import annotations

from typing import Any

from ..kernels.config import config
from ..kernels.report import configure_logging
from .compile import ExternInfo, KernelInfo, TritonGraph, compile_graph

__all__ = ["ExternInfo", "KernelInfo", "TritonGraph", "compile_graph", "config", "triton_backend"]


def triton_backend(gm: Any, example_inputs: list[Any]) -> Any:
    """The ``triton`` backend: forward, backward and inference graphs compiled to Triton kernels."""
    from ..aot import aot_eager, has_unbound_sizes

    if has_unbound_sizes(gm, example_inputs):  # sizes only the run fixes, which the kernels cannot bind: ATen graphs as they are
        return aot_eager(gm, example_inputs)
    from ..aot import aot_compile
    from ..kernels.decompositions import decomposition_table
    from ..partition import min_cut_partition
    from . import device

    device.prepare()
    configure_logging()
    return aot_compile(
        gm,
        example_inputs,
        backend="triton",
        compile_graph=compile_graph,
        decompositions=decomposition_table(),
        partition_fn=min_cut_partition,
    )
