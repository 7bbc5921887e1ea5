"""Compiling one ATen graph to C: lower, schedule, generate kernels and host code, build, load.

The lowering, the scheduler and the host's Python side are the ones the Triton generator uses
(``loom_backends.kernels``); only the kernels' source and their launch differ. The shared object is built
by :mod:`loom_backends.c_toolchain` (system compiler, disk cache); when it cannot be built the graph runs
through ATen with one warning naming the cause.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import c_toolchain
from ..kernels.compiled_graph import CompiledGraphBase, compile_or_eager
from ..kernels.graph import GraphLowering, GraphUnsupported
from ..kernels.ir import ComputedBuffer
from ..kernels.report import (
    ExternInfo,
    KernelInfo,
    kernel_info,
    kernel_name,
    log_output_code,
)
from ..kernels.scheduler import ExternStep, FusedKernel, Scheduler
from .codegen import CKernelCodegen
from .copies import layout_copy
from .profitable import unprofitable_reason
from .wrapper import CWrapperCodegen

log = logging.getLogger("loom.c")

EXTRA_FLAGS = ("-fwrapv",)  # integer arithmetic wraps, as ATen's does


@dataclass(eq=False, repr=False)
class CGraph(CompiledGraphBase):
    """A compiled ATen graph: call it with the graph's inputs; it returns the graph's outputs."""

    kind: str
    call: Callable[..., Any]
    source: str = ""  # the C translation unit, then the Python host module
    kernels: list[KernelInfo] = field(default_factory=list)
    externs: list[ExternInfo] = field(default_factory=list)
    fallback_reason: str | None = None  # set when the whole graph runs through ATen instead
    symbolic_sizes: tuple[str, ...] = ()
    c_source: str = ""
    host_source: str = ""


def _check_devices(graph: GraphLowering) -> None:
    for node in graph.nodes:
        if isinstance(node, ComputedBuffer) and node.device.type != "cpu":
            raise GraphUnsupported(f"the C backend compiles CPU tensors ({node.device.type} tensors run through ATen)")


def _eager_graph(gm: torch.fx.GraphModule, kind: str, reason: str) -> CGraph:
    log.info("graph %s runs through ATen: %s", kind, reason)
    return CGraph(kind, gm.forward, fallback_reason=reason)


def compile_graph(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str = "inference") -> CGraph:
    """Compile an ATen graph (core ATen ops, as AOTAutograd hands over) into C kernels."""
    return compile_or_eager(
        lambda: _compile_or_no_toolchain(gm, example_inputs, kind),
        lambda reason: _eager_graph(gm, kind, reason),
        kind,
        log,
    )


def _compile_or_no_toolchain(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str) -> CGraph:
    try:
        return _compile(gm, example_inputs, kind)
    except c_toolchain.ToolchainUnavailable as err:  # no C compiler here: warned about once, not an error
        c_toolchain.warn_fallback(err.reason)
        return _eager_graph(gm, kind, err.reason)


def _compile(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str) -> CGraph:
    graph = GraphLowering(gm, example_inputs, store_reused_math=True).run()
    _check_devices(graph)
    steps = Scheduler(graph.nodes, graph.outputs).schedule()
    kernels = [s for s in steps if isinstance(s, FusedKernel)]
    reason = unprofitable_reason(kernels, graph)
    if reason is not None:
        return _eager_graph(gm, kind, reason)
    sources: dict[int, Any] = {}
    infos: list[KernelInfo] = []
    copies: list[ExternInfo] = []
    for position, step in enumerate(steps):
        if not isinstance(step, FusedKernel):
            continue
        copy = layout_copy(step, graph.buffers)
        if copy is not None:
            sources[position] = copy
            copies.append(ExternInfo(copy.dst, "aten.copy_.default", "a layout change: ATen's copy_ is faster"))
            continue
        name = kernel_name(step, len(sources), False).replace("loom_per_", "loom_red_")
        ops = ", ".join(dict.fromkeys(o for n in step.nodes for o in n.origins)) or "no ATen op (a copy)"
        src = CKernelCodegen(step, name, graph.buffers, f"{name}: {ops}").generate()
        sources[position] = src
        infos.append(kernel_info(step, src, graph))
    wrapper = CWrapperCodegen(graph, steps, sources, kind)
    host = wrapper.generate()
    c_source = wrapper.c_source() if wrapper.runs else ""
    source = (c_source + "\n" if c_source else "") + host
    log_output_code(kind, "loom_backends.c", source)
    if c_source:
        wrapper.bind(c_toolchain.load_library(c_source, extra_flags=EXTRA_FLAGS))
    namespace: dict[str, Any] = {}
    exec(compile(host, f"<loom c graph {kind}>", "exec"), namespace)
    call = namespace["make_call"](*wrapper.constants)
    externs = [ExternInfo(s.call.name, s.call.op_name, s.call.reason) for s in steps if isinstance(s, ExternStep)]
    externs += copies
    sizes = tuple(f"{symbol.name} = {text}" for symbol, text in graph.sizevars.bound())
    return CGraph(kind, call, source, infos, externs, symbolic_sizes=sizes, c_source=c_source, host_source=host)
