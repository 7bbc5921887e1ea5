"""``loom.explain(fn)(*args)``: run ``fn`` once under loom and report what it captured and why it broke.

The run uses a private :class:`Recorder` callback. It translates and compiles frames exactly as
``loom.compile`` would, but hands the hook each rewritten code object for *this call only* (keeping
its own cache for the rest of the run), never marks user code SKIP, and removes the names it bound in
globals at the end. So explaining leaves nothing behind: later real calls compile as if explain had
never run, and ``loom.stats()`` does not count explain's work. Before the run it clears the SKIP marks
loom put on user code it could not capture earlier, so that those frames are explained too.
"""

from __future__ import annotations

import functools
import sys
import time
import types
from collections import Counter
from collections.abc import Callable
from typing import Any

import torch

import loom_framehook as framehook

from . import distributed, frame_compiler
from .explain_report import ExplainReport, FrameInfo
from .frame_compiler import CompiledFrame, FrameCompiler, why_failed
from .module import CompiledModule
from .settings import Settings, make_settings

__all__ = ["ExplainReport", "Recorder", "explain"]


def explain(
    fn: Callable[..., Any] | torch.nn.Module,
    *,
    backend: str | Callable[..., Any] = "eager",
    options: dict[str, Any] | None = None,
) -> Callable[..., ExplainReport]:
    """``loom.explain(fn)(*args, **kwargs)`` runs ``fn(*args, **kwargs)`` once under loom and returns an
    :class:`ExplainReport`: the graphs, graph breaks (reason, the user's file:line and source line),
    guards, ops per graph and compile times; ``report.result`` is what ``fn`` returned and
    ``report.bytecode()`` the rewritten bytecode. ``print(report)`` shows it all.

    ``fn`` may be a function, any callable, an ``nn.Module`` or something ``loom.compile`` returned
    (its original is explained, with ``backend`` and ``options`` as given here). Exceptions ``fn``
    raises propagate. Nothing compiled during the run is kept.
    """
    settings = make_settings(backend, False, None, options)
    if isinstance(fn, CompiledModule):
        target: Callable[..., Any] = fn._orig_mod
    elif callable(fn):
        target = getattr(fn, "_loom_original", fn)
    else:
        raise TypeError(f"loom.explain() expects a function, a callable or an nn.Module, got {type(fn).__name__}")
    frame_compiler.request(distributed.forward_to_compile(target) if isinstance(target, torch.nn.Module) else target)

    @functools.wraps(target)
    def run(*args: Any, **kwargs: Any) -> ExplainReport:
        recorder = Recorder(settings)
        # FakeTensorMode imports torch._dynamo on first use: seconds, once per process, inside the
        # first compile. Say so in the report rather than let it pass for compile time.
        first_use = "torch._dynamo" not in sys.modules
        frame_compiler.unskip_user_codes()
        started = time.perf_counter()
        previous = framehook.set_callback(recorder)
        try:
            result = target(*args, **kwargs)
        finally:
            framehook.set_callback(previous)
            recorder.cleanup()
        return ExplainReport(
            name=getattr(target, "__qualname__", type(target).__name__),
            backend=settings.backend_name,
            result=result,
            frames=recorder.frames,
            wall_seconds=time.perf_counter() - started,
            counts=dict(recorder.counts),
            includes_first_use=first_use and bool(recorder.frames),
        )

    return run


class Recorder(FrameCompiler):
    """A frame compiler that records every frame it translates and leaves no entries behind."""

    def __init__(self, settings: Settings) -> None:
        super().__init__(settings)
        self.frames: list[FrameInfo] = []
        self.counts: Counter[str] = Counter()
        self._cache: dict[types.CodeType, list[tuple[Any, types.CodeType]]] = {}
        self._not_captured: set[types.CodeType] = set()
        self._installed: list[tuple[dict[str, Any], list[str]]] = []
        self._last_breaks: list[Any] = []
        self._marked: list[types.CodeType] = []

    def bump(self, name: str, by: int = 1) -> None:
        """Count into the report, not into ``loom.stats()``."""
        self.counts[name] += by  # explain's own counts: loom.stats() is left alone

    def _on_miss(self, frame: Any, code: types.CodeType) -> Any:
        cached = self._cache.get(code, [])
        for guard_fn, new_code in cached:
            if guard_fn(frame):
                self.counts["cache_hits"] += 1
                return new_code  # this call only: nothing is stored on the code object
        if code in self._not_captured:
            return None
        reason = why_failed(cached[-1][0], frame) if cached else None
        if not self.policy.allow_compile(code, reason):
            return None
        if cached:
            self.bump("recompiles")
        built = self.build(frame, code, str(reason) if reason is not None else None)
        if built is None:
            return self._uncapturable(code)
        self.frames.append(FrameInfo.from_compiled(built))
        self._installed.append((built.f_globals, built.installed))
        cached.append((built.guard_fn, built.translation.code))
        self._cache[code] = cached
        return built.translation.code

    def build(self, frame: Any, code: types.CodeType, recompile_reason: str | None = None) -> CompiledFrame | None:
        """As the base compiler's, also recording a frame that could not be captured."""
        started = time.perf_counter()
        built = super().build(frame, code, recompile_reason)
        if built is None:
            # Record the failed translation: build() does not return it, so translate's breaks are
            # gathered from what _report_breaks saw.
            self.frames.append(FrameInfo.not_captured(code, self._last_breaks, time.perf_counter() - started))
        return built

    def _report_breaks(self, code: types.CodeType, translation: Any) -> None:
        self._last_breaks = list(translation.breaks)
        super()._report_breaks(code, translation)

    def _uncapturable(self, code: types.CodeType) -> Any:
        self._not_captured.add(code)
        return None  # never SKIP: that mark would outlive the explain run

    def _tensor_free(self, code: types.CodeType, verdict: Any) -> Any:
        # Marked as loom.compile would (deep pure-Python recursion must run as it does there), and
        # unmarked by cleanup().
        self._marked.append(code)
        return super()._tensor_free(code, verdict)

    def _internal_error(self, code: types.CodeType, exc: Exception) -> Any:
        self.frames.append(FrameInfo.failed(code, exc))
        return super()._internal_error(code, exc)  # warns (or raises), then _uncapturable

    def _backend_failed(self, code: types.CodeType, exc: Any) -> Any:
        self.frames.append(FrameInfo.failed(code, exc))
        return super()._backend_failed(code, exc)  # warns, then _uncapturable

    def cleanup(self) -> None:
        """Remove every name the run bound in user globals."""
        for f_globals, names in self._installed:
            for name in names:
                f_globals.pop(name, None)
        self._installed.clear()
        self._cache.clear()
        for code in self._marked:
            if not framehook.entries(code):
                framehook.clear(code)
        self._marked.clear()
