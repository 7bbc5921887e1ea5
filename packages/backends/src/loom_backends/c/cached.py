"""A compiled C graph (:class:`CGraph`) and its rebuilding from the graph cache (:func:`from_cache`).

Kept apart from :mod:`.compile` so that a process whose graphs all come from the caches (loom's frame
cache serving a warm process) loads the shared object and the host program without importing the lowering,
the scheduler or sympy (0.25 s).
"""

from __future__ import annotations

import ctypes
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import torch

from .. import c_toolchain, graph_cache
from ..kernels.compiled_graph import CompiledGraphBase
from ..kernels.records import ExternInfo, KernelInfo, log_output_code

__all__ = ["EXTRA_FLAGS", "CGraph", "from_cache"]

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


def _eager_graph(gm: torch.fx.GraphModule, kind: str, reason: str) -> CGraph:
    log.info("graph %s runs through ATen: %s", kind, reason)
    return CGraph(kind, gm.forward, fallback_reason=reason)


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
