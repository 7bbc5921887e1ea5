"""What every code generator's compiled graph does alike: :class:`CompiledGraphBase` (calling it, its repr)
and :func:`compile_or_eager` (a graph that cannot be compiled runs through ATen instead)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from typing import Any, TypeVar

from .config import config
from .records import ExternInfo, KernelInfo

G = TypeVar("G")


class CompiledGraphBase:
    """What every code generator's compiled graph does alike: calling it runs ``call``; its repr counts
    the kernels and extern calls, or says why the whole graph runs through ATen. (A dataclass subclass
    declares ``kind``, ``call``, ``kernels``, ``externs``, ``fallback_reason`` and ``symbolic_sizes``, with
    ``repr=False`` so that this repr stays.)"""

    kind: str
    call: Any
    kernels: list[KernelInfo]
    externs: list[ExternInfo]
    fallback_reason: str | None
    symbolic_sizes: tuple[str, ...]

    def __call__(self, *args: Any) -> Any:
        if getattr(self.call, "_boxed_call", False):
            return self.call(list(args))
        return self.call(*args)

    def boxed(self) -> Callable[[list[Any]], Any]:
        """The graph as AOTAutograd's boxed function (``f(args)``, marked ``_boxed_call``): the generated
        ``call`` itself, which empties the list so that each input is freed after its last use; a graph
        running through ATen gets its inputs unpacked."""
        if getattr(self.call, "_boxed_call", False):
            return self.call
        call = self.call

        def unboxed(args: list[Any]) -> Any:
            return call(*args)

        unboxed._boxed_call = True  # type: ignore[attr-defined]
        return unboxed

    def __repr__(self) -> str:
        name = type(self).__name__
        if self.fallback_reason:
            return f"<{name} {self.kind}: runs through ATen ({self.fallback_reason})>"
        sizes = f", sizes {', '.join(self.symbolic_sizes)}" if self.symbolic_sizes else ""
        return f"<{name} {self.kind}: {len(self.kernels)} kernels, {len(self.externs)} extern calls{sizes}>"


def compile_or_eager(compile: Callable[[], G], eager_graph: Callable[[str], G], kind: str, log: logging.Logger) -> G:
    """``compile()``; when the graph is unsupported, or compiling fails (unless ``config.strict``), the
    graph ``eager_graph(reason)`` builds, which runs through ATen."""
    from .graph import GraphUnsupported  # the lowering (and sympy): only a compile gets here

    try:
        return compile()
    except GraphUnsupported as err:
        return eager_graph(str(err))
    except Exception as err:
        if config.strict:
            raise
        log.warning("compiling graph %s failed (%s: %s); it runs through ATen", kind, type(err).__name__, err)
        return eager_graph(f"compilation failed: {type(err).__name__}: {err}")
