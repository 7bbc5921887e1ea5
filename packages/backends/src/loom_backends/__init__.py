"""loom_backends: the backend registry and loom's built-in backends.

A backend is ``fn(gm: torch.fx.GraphModule, example_inputs: list) -> callable``; the callable takes the
graph's inputs positionally and returns what the graph returns.

>>> import loom_backends
>>> loom_backends.names()
['aot_eager', 'c', 'default', 'eager', 'triton']
>>> compiled = loom_backends.get("triton")(gm, example_inputs)   # doctest: +SKIP
>>> again = loom_backends.reload("c", compiled_by_c.cache_key)   # another process   # doctest: +SKIP

Built-in backends:

- ``eager``: runs the graph module as it is.
- ``aot_eager``: forward and backward ATen graphs through AOTAutograd, run as they are.
- ``default``: the code generator for the graph's device (``c`` on CPU, ``triton`` on CUDA), chosen when
  the graph is compiled; what ``loom.compile`` uses unless told otherwise.
- ``triton``: AOTAutograd, decomposition to core ATen, then loom's own lowering, fusion and Triton code
  generation (kernels run under Triton's interpreter when there is no GPU).
- ``c``: the same lowering and fusion, generating C with OpenMP for CPU tensors, built by the system C
  compiler (graphs run through ATen, with one warning, when there is none).

Importing this package imports neither torch's compiler stacks nor triton: each backend imports what it
needs the first time it runs.
"""

from __future__ import annotations

from typing import Any

from .compiled import CompiledFunction, GraphArtifact
from .diagnostics import CompilerWarning
from .registry import (
    Backend,
    Reloader,
    UnknownBackendError,
    get,
    has_reloader,
    names,
    register,
    register_reloader,
    reload,
    unregister,
)

__version__ = "0.1.0"

__all__ = [
    "Backend",
    "CompiledFunction",
    "CompilerWarning",
    "GraphArtifact",
    "Reloader",
    "UnknownBackendError",
    "get",
    "has_reloader",
    "names",
    "register",
    "register_reloader",
    "reload",
    "unregister",
]

# The built-in backends are registered under thin wrappers that import their module on first use. (The
# wrappers are private: the submodules `eager`, `aot` and `triton` own those names on the package.)


@register("eager")
def _eager(gm: Any, example_inputs: list[Any]) -> Any:
    """Run the graph module as it is."""
    from .eager import eager as impl

    return impl(gm, example_inputs)


@register("aot_eager")
def _aot_eager(gm: Any, example_inputs: list[Any]) -> CompiledFunction:
    """Forward and backward through AOTAutograd, each ATen graph run as it is."""
    from .aot import aot_eager as impl

    return impl(gm, example_inputs)


@register("c")
def _c(gm: Any, example_inputs: list[Any]) -> CompiledFunction:
    """AOTAutograd + core ATen decompositions + loom's fusing C code generator (CPU tensors)."""
    from .c import c_backend

    return c_backend(gm, example_inputs)


@register_reloader("c")
def _c_reload(key: str) -> CompiledFunction | None:
    """A ``c`` compiled function from its ``cache_key``, from the AOTAutograd and graph caches alone."""
    from .c import c_reload

    return c_reload(key)


@register("default")
def _default(gm: Any, example_inputs: list[Any]) -> Any:
    """The code generator for the graph's device: ``c`` on CPU, ``triton`` on CUDA (see ``default.py``)."""
    from .default import default_backend

    return default_backend(gm, example_inputs)


@register_reloader("default")
def _default_reload(key: str) -> CompiledFunction | None:
    """A ``default`` compiled function from its ``cache_key``: the device backends' reloaders, in turn."""
    from .default import default_reload

    return default_reload(key)


@register("triton")
def _triton(gm: Any, example_inputs: list[Any]) -> CompiledFunction:
    """AOTAutograd + core ATen decompositions + loom's fusing Triton code generator."""
    from .triton import triton_backend

    return triton_backend(gm, example_inputs)
