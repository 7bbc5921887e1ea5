"""Compiling one ATen graph: lower, schedule, generate kernels and host code, load, and describe it."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from ..kernels import symbols
from ..kernels.compiled_graph import CompiledGraphBase, compile_or_eager
from ..kernels.config import config
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
from . import device
from .codegen import KernelCodegen, KernelSource
from .runtime import load_module, module_path
from .wrapper import WrapperCodegen

log = logging.getLogger("loom.triton")


@dataclass(eq=False, repr=False)
class TritonGraph(CompiledGraphBase):
    """A compiled ATen graph: call it with the graph's inputs; it returns the graph's outputs."""

    kind: str
    call: Callable[..., Any]
    source: str = ""
    path: str | None = None
    kernels: list[KernelInfo] = field(default_factory=list)
    externs: list[ExternInfo] = field(default_factory=list)
    fallback_reason: str | None = None  # set when the whole graph runs through ATen instead
    # Over symbolic sizes (dynamic shapes): how the host computes each size symbol, e.g. "s0 = arg0.shape[0]"
    symbolic_sizes: tuple[str, ...] = ()


def _check_devices(graph: GraphLowering) -> None:
    for node in graph.nodes:
        if isinstance(node, ComputedBuffer):
            reason = device.kernel_device(node.device)
            if reason is not None:
                raise GraphUnsupported(reason)


def _eager_graph(gm: torch.fx.GraphModule, kind: str, reason: str) -> TritonGraph:
    log.info("graph %s runs through ATen: %s", kind, reason)
    return TritonGraph(kind, gm.forward, fallback_reason=reason)


def compile_graph(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str = "inference") -> TritonGraph:
    """Compile an ATen graph (core ATen ops, as AOTAutograd hands over) into Triton kernels."""
    device.prepare()
    return compile_or_eager(
        lambda: _compile(gm, example_inputs, kind), lambda reason: _eager_graph(gm, kind, reason), kind, log
    )


def _compile(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str) -> TritonGraph:
    graph = GraphLowering(gm, example_inputs).run()
    _check_devices(graph)
    steps = Scheduler(graph.nodes, graph.outputs).schedule()
    sources: dict[int, KernelSource] = {}
    infos: list[KernelInfo] = []
    for position, step in enumerate(steps):
        if not isinstance(step, FusedKernel):
            continue
        rnumel = symbols.static_int(step.rnumel)
        persistent = rnumel is not None and rnumel <= config.persistent_reduction_limit
        name = kernel_name(step, len(sources), persistent)
        src = KernelCodegen(step, name, graph.buffers, persistent).generate()
        sources[position] = src
        infos.append(kernel_info(step, src, graph))
    wrapper = WrapperCodegen(graph, steps, sources, kind)
    source = wrapper.generate()
    log_output_code(kind, module_path(source), source)
    module = load_module(source)
    call = module.make_call(*wrapper.constants)
    externs = [ExternInfo(s.call.name, s.call.op_name, s.call.reason) for s in steps if isinstance(s, ExternStep)]
    sizes = tuple(f"{symbol.name} = {text}" for symbol, text in graph.sizevars.bound())
    return TritonGraph(kind, call, source, str(module_path(source)), infos, externs, symbolic_sizes=sizes)
