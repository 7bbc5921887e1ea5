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

import ctypes
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import c_toolchain, graph_cache
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


def from_cache(gm: torch.fx.GraphModule, key: str, kind: str) -> CGraph | None:
    """The graph stored under graph cache ``key`` (``gm`` is the ATen graph it was compiled from), or None:
    what the AOTAutograd cache replays, compiling nothing."""
    with graph_cache.real_tensors():
        return _from_cache(gm, key, kind)


def _from_cache(gm: torch.fx.GraphModule, key: str, kind: str) -> CGraph | None:
    """The graph rebuilt from its cache entry; None on a miss or an entry it cannot be rebuilt from."""
    found = graph_cache.load(key)
    if found is None:
        return None
    entry, tensors = found
    try:
        if entry.get("fallback_reason"):
            compiled = _eager_graph(gm, kind, entry["fallback_reason"])
        else:
            compiled = _rebuild(entry, tensors, kind)
    except c_toolchain.ToolchainUnavailable as err:  # the library is gone and cannot be built again here
        c_toolchain.warn_fallback(err.reason)
        return _eager_graph(gm, kind, err.reason)
    except Exception as exc:  # a damaged or stale entry: compile the graph again
        graph_cache.ignore(key, f"{type(exc).__name__}: {exc}")
        return None
    graph_cache.count("hits")
    log.debug("graph %s from the graph cache (%s)", kind, key)
    return compiled


def _rebuild(entry: dict[str, Any], tensors: list[torch.Tensor], kind: str) -> CGraph:
    c_source, host = entry["c_source"], entry["host_source"]
    lib = c_toolchain.load_library(c_source, extra_flags=EXTRA_FLAGS) if c_source else None
    entry_points = {name: _entry_point(lib, name, buffers, sizes) for name, buffers, sizes in entry["runs"]}
    constants = []
    for what, value in entry["constants"]:
        if what == "entry":
            constants.append(entry_points[value])
        elif what == "tensor":
            constants.append(tensors[value])
        else:
            constants.append(graph_cache.resolve_object(value))
    namespace: dict[str, Any] = {}
    exec(compile(host, f"<loom c graph {kind}>", "exec"), namespace)
    call = namespace["make_call"](*constants)
    source = (c_source + "\n" if c_source else "") + host
    log_output_code(kind, "loom_backends.c", source)
    infos = [KernelInfo(**_tuples(k)) for k in entry["kernels"]]
    externs = [ExternInfo(**e) for e in entry["externs"]]
    sizes = tuple(entry["symbolic_sizes"])
    return CGraph(kind, call, source, infos, externs, symbolic_sizes=sizes, c_source=c_source, host_source=host)


def _entry_point(lib: Any, name: str, buffers: int, sizes: list[str]) -> Any:
    """A run's C entry point with the argument types ``CWrapperCodegen.bind`` gives it: a pointer per
    buffer, an int64 (``s0``) or a double (``f0``) per size, the thread count."""
    fn = getattr(lib, name)
    size_types = [ctypes.c_double if s.startswith("f") else ctypes.c_int64 for s in sizes]
    fn.argtypes = [ctypes.c_void_p] * buffers + size_types + [ctypes.c_int]
    fn.restype = ctypes.c_int
    return fn


def _tuples(record: dict[str, Any]) -> dict[str, Any]:
    return {k: tuple(v) if isinstance(v, list) else v for k, v in record.items()}
