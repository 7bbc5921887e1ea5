"""The frame hook's callback: translate a frame, compile its graphs, and cache the result on its code.

One :class:`FrameCompiler` belongs to each ``loom.compile(...)`` result and carries its settings
(backend, fullgraph, options). The hook calls it at the first entry of every frame that is neither
skipped nor served by a cached entry.
"""

from __future__ import annotations

import logging
import time
import types
import warnings
from collections.abc import Callable
from typing import Any

import loom_backends
import loom_framehook as framehook
import loom_guards
import loom_symbolic

from . import counters, skipfiles
from .errors import InternalError, Unsupported

log = logging.getLogger("loom")
recompiles_log = logging.getLogger("loom.recompiles")
breaks_log = logging.getLogger("loom.graph_breaks")
guards_log = logging.getLogger("loom.guards")
graph_log = logging.getLogger("loom.graph")
bytecode_log = logging.getLogger("loom.bytecode")

DEFAULT_RECOMPILE_LIMIT = 8
KNOWN_OPTIONS = {"recompile_limit", "raise_on_internal_error"}


class RecompileLimitWarning(UserWarning):
    """A function was recompiled more often than the limit allows; it now runs uncompiled."""


def resolve_backend(backend: str | Callable) -> Callable:
    """A backend callable from a registered name or a callable."""
    if isinstance(backend, str):
        return loom_backends.get(backend)
    if callable(backend):
        return backend
    raise TypeError(f"backend must be a registered backend name or a callable, got {type(backend).__name__}")


class FrameCompiler:
    """The callback for one compiled function; see the module docstring."""

    def __init__(self, backend: str | Callable, fullgraph: bool, options: dict[str, Any]) -> None:
        self.backend_name = backend if isinstance(backend, str) else getattr(backend, "__name__", repr(backend))
        self.backend = resolve_backend(backend)
        self.fullgraph = fullgraph
        self.options = options
        self.recompile_limit = int(options.get("recompile_limit", DEFAULT_RECOMPILE_LIMIT))
        self._warned: set[types.CodeType] = set()
        #: Per code object compiled by this compiler: (translations, compile seconds) for explain.
        self.history: list[tuple[loom_symbolic.Translation, float]] = []

    def __call__(self, frame: Any) -> Any:
        code = frame.f_code
        if skipfiles.is_library_code(code) or loom_symbolic.is_skipped(code):
            counters.bump("frames_skipped")
            return framehook.SKIP
        existing = framehook.entries(code)
        if len(existing) >= self.recompile_limit:
            self._warn_limit(code, existing, frame)
            return None
        try:
            return self._compile(frame, code, existing)
        except Unsupported:
            raise
        except Exception as exc:
            if self.options.get("raise_on_internal_error"):
                raise InternalError(f"loom failed while compiling {code.co_qualname}: {exc}") from exc
            warnings.warn(
                f"loom: internal error while compiling {code.co_qualname} ({type(exc).__name__}: {exc}); "
                "running it uncompiled",
                RuntimeWarning,
                stacklevel=2,
            )
            log.debug("internal error", exc_info=True)
            return framehook.SKIP

    def _compile(self, frame: Any, code: types.CodeType, existing: list) -> Any:
        started = time.perf_counter()
        if existing:
            counters.bump("recompiles")
            self._log_recompile(code, existing, frame)
        translation = loom_symbolic.translate(code, frame.f_locals, frame.f_globals, frame.f_builtins, frame.closure)
        if translation.refused is not None:
            counters.bump("frames_skipped")
            return framehook.SKIP
        for item in translation.breaks:
            counters.bump("graph_breaks")
            breaks_log.info("graph break in %s: %s", code.co_qualname, item)
            if self.fullgraph:
                raise Unsupported(item.reason)
        if not translation.captured:
            self.history.append((translation, time.perf_counter() - started))
            return framehook.SKIP
        translation.install(frame.f_globals, self._compile_graph)
        guard = loom_guards.compile(translation.guards)
        counters.bump("frames_compiled")
        counters.bump("graphs", len(translation.graphs))
        self.history.append((translation, time.perf_counter() - started))
        if bytecode_log.isEnabledFor(logging.INFO) or graph_log.isEnabledFor(logging.INFO):
            bytecode_log.info("%s", translation.dump())
        if guards_log.isEnabledFor(logging.INFO):
            guards_log.info("guards for %s:\n%s", code.co_qualname, guard.describe())
        return framehook.Entry(translation.code, guard)

    def _compile_graph(self, graph: loom_symbolic.CapturedGraph) -> Callable:
        return self.backend(graph.graph_module, list(graph.example_inputs))

    def _log_recompile(self, code: types.CodeType, existing: list, frame: Any) -> None:
        if recompiles_log.isEnabledFor(logging.INFO):
            reason = _why_failed(existing[0].guard, frame)
            recompiles_log.info("recompiling %s: %s", code.co_qualname, reason)

    def _warn_limit(self, code: types.CodeType, existing: list, frame: Any) -> None:
        if code in self._warned:
            return
        self._warned.add(code)
        reason = _why_failed(existing[0].guard, frame)
        warnings.warn(
            f"loom: {code.co_qualname} ({code.co_filename}:{code.co_firstlineno}) was recompiled "
            f"{len(existing)} times, the limit (options={{'recompile_limit': {self.recompile_limit}}}); "
            f"it now runs uncompiled for inputs no cached entry accepts. The guard that kept failing: {reason}",
            RecompileLimitWarning,
            stacklevel=2,
        )


def _why_failed(guard: Any, frame: Any) -> str:
    explain = getattr(guard, "why_failed", None)
    if explain is None:
        return "a guard failed"
    try:
        return str(explain(frame) or "a guard failed")
    except Exception as exc:  # explaining must never break the program
        return f"a guard failed ({type(exc).__name__} while explaining it)"
