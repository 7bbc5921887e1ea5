"""The ``c`` backend: AOTAutograd, core ATen decompositions, then loom's lowering, fusion and C code generation.

Pipeline for each ATen graph AOTAutograd hands over (forward, backward or inference): the device-neutral
compiler of :mod:`loom_backends.kernels` (lowering rules, loop IR, scheduler, host code), then
``codegen.py`` (a C function per fused kernel, OpenMP for threads and vectorisation), ``wrapper.py``
(one translation unit per graph, one entry point per run of kernels, the Python host) and
:mod:`loom_backends.c_toolchain` (the system compiler, a disk cache). CPU tensors only.
"""

from __future__ import annotations

from typing import Any

from ..kernels.config import config
from ..kernels.records import configure_logging
from .cached import CGraph

__all__ = ["CGraph", "c_backend", "c_reload", "compile_graph", "config"]


def __getattr__(name: str) -> Any:
    # The compiler (lowering, scheduler, sympy: 0.25 s to import) is loaded when first used, so that
    # reloading cached graphs (c_reload) does not pay for it.
    if name == "compile_graph":
        from .compile import compile_graph

        return compile_graph
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def c_backend(gm: Any, example_inputs: list[Any]) -> Any:
    """The ``c`` backend: forward, backward and inference graphs compiled to C kernels."""
    from ..aot import aot_eager, has_unbound_sizes

    if has_unbound_sizes(gm, example_inputs):  # sizes only the run fixes, which the kernels cannot bind: ATen graphs as they are
        return aot_eager(gm, example_inputs)
    from ..aot import aot_compile
    from ..aot_cache import AotCache
    from ..kernels.decompositions import decomposition_table
    from ..partition import min_cut_partition
    from .cached import from_cache
    from .channels_last import channels_last
    from .compile import compile_graph

    configure_logging()
    return aot_compile(
        channels_last(gm, example_inputs),
        example_inputs,
        backend="c",
        compile_graph=compile_graph,
        decompositions=decomposition_table(),
        partition_fn=min_cut_partition,
        cache=AotCache("c", from_cache),
    )


def c_reload(key: str) -> Any:
    """The ``CompiledFunction`` :func:`c_backend` returned with ``cache_key`` ``key``, rebuilt from the
    AOTAutograd and graph caches alone (:mod:`loom_backends.aot_reload`); None when they do not hold it.
    ValueError when ``key`` is not a cache key."""
    from ..aot_cache import AotCache
    from ..aot_reload import reload
    from ..compiled import CompiledFunction
    from .cached import from_cache

    configure_logging()
    found = reload(key, AotCache("c", from_cache))
    if found is None:
        return None
    return CompiledFunction("c", found.fn, found.artifacts, cache_key=key)
