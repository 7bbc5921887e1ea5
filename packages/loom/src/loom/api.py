"""``loom.compile`` and the wrapper it returns for functions, plus ``reset`` and ``stats``."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar, overload

import torch

import loom_framehook as framehook
import loom_symbolic

from . import counters, versions
from .frame_compiler import FrameCompiler, compiler_for, forget_everything, request
from .module import CompiledModule, wrap_module
from .settings import make_settings

F = TypeVar("F", bound=Callable[..., Any])
M = TypeVar("M", bound=torch.nn.Module)


@overload
def compile(
    model: None = None,
    *,
    backend: str | Callable[..., Any] = ...,
    fullgraph: bool = ...,
    dynamic: bool | None = ...,
    options: dict[str, Any] | None = ...,
) -> Callable[[F], F]: ...


@overload
def compile(
    model: F,
    *,
    backend: str | Callable[..., Any] = ...,
    fullgraph: bool = ...,
    dynamic: bool | None = ...,
    options: dict[str, Any] | None = ...,
) -> F: ...


def compile(
    model: Callable[..., Any] | torch.nn.Module | None = None,
    *,
    backend: str | Callable[..., Any] = "default",
    fullgraph: bool = False,
    dynamic: bool | None = None,
    options: dict[str, Any] | None = None,
) -> Any:
    """Compile ``model`` (a function, a bound method, any callable, or an ``nn.Module``) with loom.

    Usable as ``loom.compile(fn)``, ``@loom.compile`` and ``@loom.compile(backend="aot_eager")``.

    * ``backend``: a registered backend name (``loom_backends.names()``: ``default``, ``eager``,
      ``aot_eager``, ``triton``, ``c``) or a callable ``backend(gm, example_inputs) -> callable``. The
      default, ``"default"``, generates kernels for each graph's device as torch.compile's default does
      (``c`` on CPU, ``triton`` on CUDA; where the C compiler is missing, one warning and the graph runs
      through ATen); ``backend="eager"`` runs captured graphs as they are (no code generation).
    * ``fullgraph``: raise :class:`loom.Unsupported` at any graph break instead of splitting the function.
    * ``dynamic``: ``None`` (default: static first, a size, int or float that changes becomes symbolic at the
      recompile), ``True`` (symbolic from the first compile) or ``False`` (never).
    * ``options``: ``{"recompile_limit": 8, "strict": False, "raise_on_internal_error": False,
      "suppress_backend_errors": None}``. A failure inside loom or the backend runs the frame uncompiled,
      with one warning per code object and the reason in ``loom.explain`` and ``LOOM_LOGS=graph_breaks``;
      ``strict`` (or ``fullgraph=True``) raises ``loom.InternalError`` / ``loom.BackendCompilerFailed``.

    On an ``nn.Module`` it returns a :class:`loom.CompiledModule` whose calls run compiled and whose
    parameters, state dict, attributes, ``train()`` and ``eval()`` are the original module's.
    Bad arguments raise ``TypeError`` or ``ValueError`` at once.

    On a CPython whose bytecode loom-symbolic does not translate yet (``loom_symbolic.versions.SUPPORTED``),
    the first ``compile()`` of the process warns with :class:`loom.UnsupportedPythonWarning` and what it
    returns runs uncompiled (``fullgraph=True`` included: the translator refuses such frames whole).
    """
    settings = make_settings(backend, fullgraph, dynamic, options)
    if model is None:
        return functools.partial(compile, backend=backend, fullgraph=fullgraph, dynamic=dynamic, options=options)
    if not callable(model):  # an nn.Module is callable too
        raise TypeError(
            f"loom.compile() expects a function, a method, a callable or an nn.Module, got {type(model).__name__}"
        )
    # Here, not in the wrapper: once per compile() and one warning per process, nothing per call. The
    # translator itself refuses each frame on such a CPython, so what is returned runs uncompiled.
    versions.warn_if_unsupported()
    compiler = compiler_for(settings)
    if isinstance(model, CompiledModule):
        model = model._orig_mod  # compiling a compiled module again replaces its settings
    if isinstance(model, torch.nn.Module):
        return wrap_module(model, compiler)
    fn = getattr(model, "_loom_original", model)
    request(fn)  # asked for by name: compiled even if it lives in a library
    return _wrap_function(fn, compiler)


def _wrap_function(fn: Callable[..., Any], compiler: FrameCompiler) -> Callable[..., Any]:
    set_callback = framehook.set_callback

    @functools.wraps(fn)
    def compiled(*args: Any, **kwargs: Any) -> Any:
        # The hook is on for this thread only, and only for the duration of the call.
        previous = set_callback(compiler)
        try:
            return fn(*args, **kwargs)
        finally:
            set_callback(previous)

    compiled._loom_compiler = compiler  # type: ignore[attr-defined]
    compiled._loom_original = fn  # type: ignore[attr-defined]
    return compiled


# A compiled function called from traced code is not inlined (that would drop its own settings): the
# call is a graph break and runs natively, under its own compiler. Every wrapper shares this code object.
loom_symbolic.skip_code(_wrap_function(lambda: None, None).__code__)  # type: ignore[arg-type]


def reset() -> None:
    """Forget every compiled entry, recompile count and counter (and the names loom bound in globals).

    Every function compiled so far compiles again at its next call. Call it between unrelated
    experiments, and in tests.
    """
    framehook.clear()
    forget_everything()
    counters.clear()
    _hits_at_reset[0] = _hook_hits()


def stats() -> dict[str, int]:
    """Counts since the last :func:`reset`.

    ``graphs`` captured, ``graph_breaks``, ``recompiles`` (compiles of a function that already had an
    entry), ``frames_compiled`` (entries made), ``frames_skipped`` (frames of library code, disabled
    code, generators and tensor-free code the hook was asked about, each once) and ``cache_hits``
    (calls the hook served from an entry without compiling).
    """
    result = counters.snapshot()
    result["cache_hits"] = _hook_hits() - _hits_at_reset[0]
    return result


def _hook_hits() -> int:
    return int(framehook.stats().get("cache_hits", 0))


_hits_at_reset = [_hook_hits()]
