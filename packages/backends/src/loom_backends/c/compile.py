"""Compiling one ATen graph to C: lower, schedule, generate kernels and host code, build, load.

The lowering, the scheduler and the host's Python side are the ones the Triton generator uses
(``loom_backends.kernels``); only the kernels' source and their launch differ. The shared object is built
by :mod:`loom_backends.c_toolchain` (system compiler, disk cache); when it cannot be built the graph runs
through ATen with one warning naming the cause.

What a compile produced is kept on disk by :mod:`loom_backends.graph_cache` (the generated C and host
sources, the entry points' signatures, the objects and tensors the host program holds, what the graph
reports about its kernels; or the decision to run the graph through ATen), so another process with the
same graph rebuilds its ``CGraph`` from that entry without lowering or generating anything.
"""

from __future__ import annotations

import logging
from typing import Any

import torch

from .. import c_toolchain, graph_cache
from ..kernels.compiled_graph import compile_or_eager
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
from .cached import EXTRA_FLAGS, CGraph, _eager_graph, _from_cache
from .codegen import CKernelCodegen
from .copies import layout_copy
from .profitable import unprofitable_reason
from .wrapper import CWrapperCodegen

log = logging.getLogger("loom.c")

def _check_devices(graph: GraphLowering) -> None:
    for node in graph.nodes:
        if isinstance(node, ComputedBuffer) and node.device.type != "cpu":
            raise GraphUnsupported(f"the C backend compiles CPU tensors ({node.device.type} tensors run through ATen)")


def compile_graph(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str = "inference") -> CGraph:
    """Compile an ATen graph (core ATen ops, as AOTAutograd hands over) into C kernels; from the graph
    cache when another process compiled the same graph."""
    with graph_cache.real_tensors():  # a caller's fake mode (torch.compile's) must not see the cache's tensors
        key = graph_cache.key_for(gm, example_inputs, kind, "c")
        cached = _from_cache(gm, key, kind) if key is not None else None
    if cached is not None:
        return cached
    keep: dict[str, Any] | None = {} if key is not None else None
    compiled = compile_or_eager(
        lambda: _compile_or_no_toolchain(gm, example_inputs, kind, keep),
        lambda reason: _eager_graph(gm, kind, reason),
        kind,
        log,
    )
    if key is not None and keep and "entry" in keep:
        with graph_cache.real_tensors():
            graph_cache.store(key, keep["entry"], keep.get("tensors", []))
    return compiled


def _compile_or_no_toolchain(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str,
                             keep: dict[str, Any] | None) -> CGraph:  # fmt: skip
    try:
        return _compile(gm, example_inputs, kind, keep)
    except c_toolchain.ToolchainUnavailable as err:  # no C compiler here: warned about once, not an error
        c_toolchain.warn_fallback(err.reason)
        return _eager_graph(gm, kind, err.reason)


def _compile(gm: torch.fx.GraphModule, example_inputs: list[Any], kind: str, keep: dict[str, Any] | None) -> CGraph:
    """Lower, schedule, generate, build and load; ``keep["entry"]`` (and ``keep["tensors"]``) receive what
    the graph cache stores (``keep`` None: nothing is kept), when the graph's host program holds only what
    an entry can name."""
    graph = GraphLowering(gm, example_inputs, store_reused_math=True).run()
    _check_devices(graph)
    steps = Scheduler(graph.nodes, graph.outputs).schedule()
    kernels = [s for s in steps if isinstance(s, FusedKernel)]
    reason = unprofitable_reason(kernels, graph)
    if reason is not None:
        if keep is not None:
            keep["entry"] = {"fallback_reason": reason}  # decided from the graph and its sizes alone
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
    compiled = CGraph(kind, call, source, infos, externs, symbolic_sizes=sizes, c_source=c_source, host_source=host)
    if keep is not None:
        _keep_entry(keep, compiled, wrapper)
    return compiled


# --- the graph cache ---------------------------------------------------------------------------------


def _keep_entry(keep: dict[str, Any], compiled: CGraph, wrapper: CWrapperCodegen) -> None:
    """What :func:`_rebuild` needs, as a graph cache entry: nothing when the host program holds an object
    an entry cannot name (it is then compiled again in every process)."""
    runs = {run.name: run for run in wrapper.runs}
    constants: list[list[Any]] = []
    tensors: list[torch.Tensor] = []
    for name, value in zip(wrapper.constant_names, wrapper.constants):
        if name in runs:
            constants.append(["entry", name])
        elif type(value) is torch.Tensor and value.device.type == "cpu":
            constants.append(["tensor", len(tensors)])
            tensors.append(value)
        elif (named := graph_cache.object_name(value)) is not None:
            constants.append(["object", named])
        else:
            graph_cache.count("bypassed")
            log.debug("graph %s not cached: its host program holds a %s", compiled.kind, type(value).__name__)
            return
    keep["entry"] = {
        "c_source": compiled.c_source,
        "host_source": compiled.host_source,
        "runs": [[run.name, len(run.buffers), list(run.sizes)] for run in wrapper.runs],
        "constants": constants,
        "kernels": graph_cache.as_records(compiled.kernels),
        "externs": graph_cache.as_records(compiled.externs),
        "symbolic_sizes": list(compiled.symbolic_sizes),
    }
    keep["tensors"] = tensors
