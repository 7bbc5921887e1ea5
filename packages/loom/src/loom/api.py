"""``loom.compile`` and the objects it returns, plus ``reset``, ``stats``, ``disable`` and friends."""

from __future__ import annotations

import functools
import types
from collections.abc import Callable
from typing import Any

import torch

import loom_framehook as framehook
import loom_symbolic

from . import counters
from .frame_compiler import KNOWN_OPTIONS, FrameCompiler


def compile(
    model: Callable | torch.nn.Module | None = None,
    *,
    backend: str | Callable = "eager",
    fullgraph: bool = False,
    dynamic: bool | None = None,
    options: dict[str, Any] | None = None,
) -> Any:
    """Compile ``model`` (a function or an ``nn.Module``) with loom.

    Usable as ``loom.compile(fn)``, ``@loom.compile`` and ``@loom.compile(backend="triton")``.
    ``backend`` is a registered backend name (see ``loom_backends.names()``) or a callable
    ``backend(gm, example_inputs) -> callable``. With ``fullgraph=True`` anything that would split
    the function into several graphs raises :class:`loom.Unsupported` instead.
    """
    _check_settings(backend, fullgraph, dynamic, options)
    if model is None:
        return functools.partial(compile, backend=backend, fullgraph=fullgraph, dynamic=dynamic, options=options)
    compiler = FrameCompiler(backend, fullgraph, dict(options or {}))
    if isinstance(model, torch.nn.Module):
        from .module import CompiledModule

        return CompiledModule(model, compiler)
    if not callable(model):
        raise TypeError(f"loom.compile() expects a function or an nn.Module, got {type(model).__name__}")
    return _wrap_function(model, compiler)


def _check_settings(backend: Any, fullgraph: Any, dynamic: Any, options: Any) -> None:
    if not isinstance(backend, str) and not callable(backend):
        raise TypeError(f"backend must be a registered backend name or a callable, got {type(backend).__name__}")
    if not isinstance(fullgraph, bool):
        raise TypeError(f"fullgraph must be a bool, got {type(fullgraph).__name__}")
    if dynamic is not None and not isinstance(dynamic, bool):
        raise TypeError(f"dynamic must be None, True or False, got {type(dynamic).__name__}")
    if options is not None:
        if not isinstance(options, dict):
            raise TypeError(f"options must be a dict, got {type(options).__name__}")
        unknown = set(options) - KNOWN_OPTIONS
        if unknown:
            raise ValueError(f"unknown option(s) {sorted(unknown)}; known options: {sorted(KNOWN_OPTIONS)}")
        limit = options.get("recompile_limit", 8)
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            raise ValueError(f"options['recompile_limit'] must be a positive int, got {limit!r}")
    if isinstance(backend, str):
        import loom_backends

        loom_backends.get(backend)  # an unknown name fails now, listing the known ones


def _wrap_function(fn: Callable, compiler: FrameCompiler) -> Callable:
    set_callback = framehook.set_callback

    @functools.wraps(fn)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        previous = set_callback(compiler)
        try:
            return fn(*args, **kwargs)
        finally:
            set_callback(previous)

    compiled._loom_compiler = compiler  # type: ignore[attr-defined]
    compiled._loom_original = fn  # type: ignore[attr-defined]
    return compiled


def reset() -> None:
    """Forget every compiled entry and zero the counters."""
    framehook.clear()
    counters.clear()
    _hits_at_reset[0] = int(framehook.stats().get("cache_hits", 0))


def stats() -> dict[str, int]:
    """Counts since the last :func:`reset`: ``graphs``, ``graph_breaks``, ``recompiles``,
    ``frames_compiled``, ``frames_skipped`` and ``cache_hits`` (entries served by the hook)."""
    result = counters.snapshot()
    result["cache_hits"] = int(framehook.stats().get("cache_hits", 0)) - _hits_at_reset[0]
    return result


_hits_at_reset = [0]


def disable(fn: Callable | None = None, *, recursive: bool = True) -> Any:
    """Run ``fn`` uncompiled even when called from compiled code (also a decorator).

    With ``recursive=False`` only ``fn``'s own frame is left alone; functions it calls are still compiled.
    """
    if not isinstance(recursive, bool):
        raise TypeError(f"recursive must be a bool, got {type(recursive).__name__}")
    if fn is None:
        return functools.partial(disable, recursive=recursive)
    if not callable(fn):
        raise TypeError(f"loom.disable() expects a function, got {type(fn).__name__}")
    code = getattr(fn, "__code__", None)
    if isinstance(code, types.CodeType):
        framehook.skip(code)
        loom_symbolic.skip_code(code)
    if not recursive:
        return fn

    @functools.wraps(fn)
    def disabled(*args: Any, **kwargs: Any) -> Any:
        previous = framehook.set_callback(None)
        try:
            return fn(*args, **kwargs)
        finally:
            framehook.set_callback(previous)

    loom_symbolic.skip_code(disabled.__code__)
    return disabled


def allow_in_graph(fn: Callable) -> Callable:
    """Record calls to ``fn`` as one graph op instead of tracing into it; returns ``fn``."""
    loom_symbolic.allow_in_graph(fn)
    return fn
