"""The frame hook's callback: translate a frame, compile its graphs, and cache the result on its code.

One :class:`FrameCompiler` serves every ``loom.compile(...)`` result with the same settings (backend,
fullgraph, dynamic, options): :func:`compiler_for` interns them. The hook calls it at the first entry of
every frame that is neither marked SKIP nor served by a cached entry, with the hook off for this thread.

Entries live on the code object and are shared by every compiled wrapper of that code, whatever its
backend; so each entry carries the compiler that made it (``Entry(..., callback=compiler)``), and the
hook serves it only while that compiler is the thread's callback (compared in C). A function compiled twice with different backends thus gets one
entry per backend, never the other one's. Functions made from one code object with different globals
(``types.FunctionType(code, other_globals)``) share the entries too, but the rewritten code loads its
graphs from the globals it was compiled in: an entry also carries those (``globals=``), checked the same way.
"""

from __future__ import annotations

import contextlib
import logging
import threading
import time
import types
import warnings
import weakref
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import torch

import loom_framehook as framehook
import loom_guards
import loom_symbolic

from . import (
    counters,
    distributed,
    frame_cache,
    gc_deferral,
    global_state,
    reachability,
    render,
    run_as_is,
    skipfiles,
)
from .break_counting import BreakCounter
from .dynamic import DynamicPolicy
from .errors import BackendCompilerFailed, InternalError, RecompileLimitError, Unsupported
from .settings import Settings
from .torch_disable import under_torch_disable

log = logging.getLogger("loom")
recompiles_log = logging.getLogger("loom.recompiles")
breaks_log = logging.getLogger("loom.graph_breaks")
guards_log = logging.getLogger("loom.guards")
graph_log = logging.getLogger("loom.graph")
bytecode_log = logging.getLogger("loom.bytecode")
output_code_log = logging.getLogger("loom.output_code")

CO_OPTIMIZED = 0x01
CO_NEWLOCALS = 0x02
CO_GENERATOR_LIKE = 0x20 | 0x80 | 0x100 | 0x200  # generator, coroutine, iterable coroutine, async generator

# One compile at a time in the process: the translator, FakeTensor and AOTAutograd keep global state,
# and two threads missing on the same code must not both compile it. Re-entrant because a backend may
# (rarely) run compiled code while compiling.
_COMPILE_LOCK = threading.RLock()

# Globals dicts and the `__loom_*` names bound in them, removed by loom.reset() so that compiled
# graphs do not outlive their entries.
_installed: list[tuple[dict[str, Any], list[str]]] = []
_installed_lock = threading.Lock()

# User code objects marked SKIP because they could not be captured (or loom failed on them).
# loom.explain() clears those marks so that it sees such frames again.
_skipped_user_codes: set[types.CodeType] = set()

# Library code loom.compile was asked to compile (the forward of a torch.nn container passed to it):
# compiled although skipfiles calls it library code.
_requested_codes: set[types.CodeType] = set()

_compilers: weakref.WeakValueDictionary[tuple[Any, ...], FrameCompiler] = weakref.WeakValueDictionary()
_compilers_lock = threading.Lock()


class LoomEntry(framehook.Entry):
    """A cache entry made by loom: ``compiler`` made it, ``guard_fn`` is its compiled guard check
    (``guard`` is the same; the hook checks ``callback`` and ``globals`` before it), ``graph_count`` and ``compile_seconds`` say what it
    cost, ``f_globals`` is the globals dict its graphs were installed in."""

    compiler: FrameCompiler
    guard_fn: loom_guards.GuardFn
    f_globals: dict[str, Any]
    graph_count: int
    compile_seconds: float


@dataclass
class CompiledFrame:
    """What compiling one frame produced (kept by ``loom.explain``; the hook keeps only the entry)."""

    code: types.CodeType
    translation: loom_symbolic.Translation
    guard_fn: loom_guards.GuardFn | None
    seconds: float
    backend_seconds: float
    recompile_reason: str | None = None
    f_globals: dict[str, Any] = field(default_factory=dict)
    installed: list[str] = field(default_factory=list)
    compiled_graphs: dict[str, Any] = field(default_factory=dict)


def compiler_for(settings: Settings) -> FrameCompiler:
    """The one live compiler for these settings (created on first use)."""
    key = settings.key()
    with _compilers_lock:
        compiler = _compilers.get(key)
        if compiler is None or compiler.settings.backend is not settings.backend:
            compiler = FrameCompiler(settings)
            _compilers[key] = compiler
        return compiler


def live_compilers() -> list[FrameCompiler]:
    """Every compiler still referenced (by a compiled wrapper or an entry)."""
    with _compilers_lock:
        return list(_compilers.values())


def is_function_code(code: types.CodeType) -> bool:
    """Whether ``code`` is a plain function body (not a module or class body, not a generator)."""
    flags = code.co_flags
    return bool(flags & CO_OPTIMIZED and flags & CO_NEWLOCALS) and not flags & CO_GENERATOR_LIKE


class FrameCompiler:
    """The hook callback for one set of settings; see the module docstring."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.policy = loom_guards.RecompilePolicy(settings.recompile_limit)
        self.dynamic = DynamicPolicy(settings.dynamic)
        self._gave_up: set[types.CodeType] = set()
        self._internal_warned: set[types.CodeType] = set()
        # Entries handed to the hook, which stores them only after the callback returns (and the compile
        # lock is released): a thread that waited on the lock checks these too, not only stored ones.
        self._handed_out: dict[types.CodeType, list[LoomEntry]] = {}
        # Which breaks loom.stats() counts: one construct, one break (break_counting).
        self._break_counter = BreakCounter()
        # Per code object, the frame-cache entries already looked at in this process (frame_cache.load: refused
        # ones are not read again, ones whose guards failed are checked again on a later miss); weak, so that
        # code objects that die (functions made in a loop) take theirs with them.
        self._disk_tried: weakref.WeakKeyDictionary[types.CodeType, dict[str, Any]] = weakref.WeakKeyDictionary()

    def __repr__(self) -> str:
        s = self.settings
        return f"<loom FrameCompiler backend={s.backend_name!r} fullgraph={s.fullgraph} limit={s.recompile_limit}>"

    # -- the callback -------------------------------------------------------------------------------
    def __call__(self, frame: Any) -> Any:
        code = frame.f_code
        if not self.wants(code, frame.f_globals):
            self.bump("frames_skipped")
            return framehook.SKIP
        if under_torch_disable():
            return None  # torch.compile is told to leave it alone: run as it is, this time
        if not framehook.entries(code):
            verdict = reachability.frame_verdict(code, frame.f_locals, frame.f_globals, frame.f_builtins,
                                                 frame.closure)
            if verdict is not reachability.Verdict.COMPILE:
                return self._tensor_free(code, verdict)
        with _COMPILE_LOCK:
            # Checked holding the lock: torch's in-dispatch-mode flag is per process, and while another
            # thread compiles it is set by loom's own fake mode. Asked before waiting, a thread would run
            # every call uncompiled for as long as another thread compiles.
            if run_as_is.reason(self.settings) is not None:
                return None  # an eager transform, a mode, forward AD...: see run_as_is; compiled when called outside
            try:
                return self._compile_leaving_state_alone(frame, code)
            except (Unsupported, RecompileLimitError, InternalError):
                raise
            except BackendCompilerFailed as exc:
                if self.settings.raises_backend_errors:
                    raise
                return self._backend_failed(code, exc)
            except Exception as exc:
                return self._internal_error(code, exc)

    def _compile_leaving_state_alone(self, frame: Any, code: types.CodeType) -> Any:
        """:meth:`_on_miss` between a snapshot of global state and its restoration (:mod:`.global_state`):
        whatever the compile did or wherever it failed, the program finds its state as it left it."""
        snapshot = global_state.take()
        try:
            return self._on_miss(frame, code)
        finally:
            global_state.restore_after_compile(snapshot, code)

    def wants(self, code: types.CodeType, f_globals: dict | None = None) -> bool:
        """Whether frames of ``code`` are compiled at all: not library code (unless compiled by request,
        like a ``torch.nn`` container's forward), disabled code, module bodies or generators."""
        if not is_function_code(code) or loom_symbolic.is_skipped(code):
            return False
        return code in _requested_codes or not skipfiles.is_library_code(code, f_globals)

    def bump(self, name: str, by: int = 1) -> None:
        """Count something in :func:`loom.stats`."""
        counters.bump(name, by)

    def _own_entries(self, code: types.CodeType) -> list[LoomEntry]:
        return [e for e in framehook.entries(code) if isinstance(e, LoomEntry) and e.compiler is self]

    def _on_miss(self, frame: Any, code: types.CodeType) -> Any:
        own = self._own_entries(code)
        for entry in own + self._not_stored_yet(code, own):
            if entry.f_globals is frame.f_globals and entry.guard_fn(frame):
                return entry.code  # another thread compiled it while this one waited for the lock
        reason = None
        if own:
            reason = (why_failed(own[0].guard_fn, frame) if own[0].f_globals is frame.f_globals
                      else "the function's globals are another dict than the ones it was compiled with")
        if own and recompiles_log.isEnabledFor(logging.DEBUG):
            recompiles_log.debug("cache miss in %s: %s", render.where(code), reason)
        if not self._allow(code, reason):
            # Past the limit: the hook serves the stored entries and runs other frames natively without
            # asking again (after a run of misses it stops walking the guards: framehook's RUN_ONLY).
            return framehook.RUN_ONLY
        if own:
            self.bump("recompiles")
            self.dynamic.learn_from_failure(code, reason)
            recompiles_log.info("recompiling %s (compile %d of at most %d): %s", render.where(code),
                                self.policy.count(code), self.settings.recompile_limit, reason)
        # Reading a kept entry (hundreds of KB of JSON for a real model) and keeping one allocate as much as
        # a compile does: the full collection that would land inside waits, as in build().
        with gc_deferral.full_collections_deferred():
            built = self._from_disk(frame, code)
            if built is None:
                built = self.build(frame, code, str(reason) if reason is not None else None)
                if built is None:
                    return self._uncapturable(code)
                frame_cache.store(self.settings, code, built)
        return self.result(built)

    def _from_disk(self, frame: Any, code: types.CodeType) -> CompiledFrame | None:
        """The frame's translation as another process kept it (:mod:`.frame_cache`), installed in the frame's
        globals; None when none is kept or none holds."""
        started = time.perf_counter()
        loaded = frame_cache.load(self.settings, frame, code, self._disk_tried.setdefault(code, {}))
        if loaded is None:
            return None
        framehook.check_replacement(code, loaded.code)
        f_globals = frame.f_globals
        for name, compiled in loaded.graphs.items():
            f_globals[name] = _hook_off(compiled)
        translation = loom_symbolic.Translation(code, code=loaded.code)
        built = CompiledFrame(code, translation, loaded.guard_fn, 0.0, 0.0, None, f_globals,
                              installed=list(loaded.graphs), compiled_graphs=dict(loaded.graphs))
        self.dynamic.record(code, frame.f_locals, frame.closure)
        built.seconds = time.perf_counter() - started
        self.bump("frames_compiled")
        self.bump("frames_from_disk")
        self.bump("graphs", len(loaded.graphs))
        log.debug("%s served from the frame cache (%s)", render.where(code), loaded.path.name)
        return built

    def _not_stored_yet(self, code: types.CodeType, stored: list[LoomEntry]) -> list[LoomEntry]:
        """Entries this compiler handed out for ``code`` that the hook has not stored yet."""
        handed_out = self._handed_out.get(code)
        if not handed_out:
            return []
        pending = [entry for entry in handed_out if not any(entry is other for other in stored)]
        if pending:
            self._handed_out[code] = pending
        else:
            del self._handed_out[code]
        return pending

    def _allow(self, code: types.CodeType, reason: Any) -> bool:
        """Apply the recompile limit: True to compile; False to run this frame uncompiled."""
        if code in self._gave_up:
            return False
        if self.policy.exceeded(code):
            if self.settings.fullgraph:
                raise RecompileLimitError(
                    f"loom: {render.where(code)} would be compiled more than {self.settings.recompile_limit} "
                    f"times (options={{'recompile_limit': ...}}); the guard that failed: {reason}"
                )
            self._gave_up.add(code)
            recompiles_log.info("%s reached the recompile limit; it runs uncompiled for new inputs", render.where(code))
        return self.policy.allow_compile(code, reason)  # False past the limit: warns once per code object

    def _tensor_free(self, code: types.CodeType, verdict: reachability.Verdict) -> Any:
        # Decided once for the code object: from now on its frames cost the hook's SKIP path, and under
        # SKIP_RECURSIVE nothing they call reaches the hook either.
        self.bump("frames_skipped")
        _skipped_user_codes.add(code)
        if verdict is reachability.Verdict.SKIP_RECURSIVE:
            return framehook.SKIP_RECURSIVE
        return framehook.SKIP

    def _uncapturable(self, code: types.CodeType) -> Any:
        # Nothing captured: run it as is. SKIP makes that free from then on, but SKIP is per code object
        # and would also hide the entries other inputs (or other backends) compiled: only when there are none.
        if framehook.entries(code):
            return None
        _skipped_user_codes.add(code)
        return framehook.SKIP

    def _internal_error(self, code: types.CodeType, exc: Exception) -> Any:
        if self.settings.raises_internal_errors:
            raise InternalError(
                f"loom failed while compiling {render.where(code)}: {type(exc).__name__}: {exc}"
            ) from exc
        log.debug("internal error while compiling %s", render.where(code), exc_info=True)
        return self._run_uncompiled(code, (
            f"loom: internal error while compiling {render.where(code)} ({type(exc).__name__}: {exc}); "
            "it runs uncompiled. Pass options={'strict': True} to raise instead."
        ))

    def _backend_failed(self, code: types.CodeType, exc: BackendCompilerFailed) -> Any:
        return self._run_uncompiled(code, (
            f"loom: backend {exc.backend_name!r} failed on graph {exc.graph_name} of {exc.where}: it {exc.what}; "
            "the frame runs uncompiled. Pass options={'strict': True} (or fullgraph=True) to raise instead."
        ))

    def _run_uncompiled(self, code: types.CodeType, warning: str) -> Any:
        """Run ``code`` uncompiled after a failure, with one ``RuntimeWarning`` per code object (and the
        reason in the ``graph_breaks`` log, at every failure)."""
        breaks_log.info("%s runs uncompiled: %s", render.where(code), warning)
        if code not in self._internal_warned:
            self._internal_warned.add(code)
            warnings.warn(warning, RuntimeWarning, stacklevel=3)
        return self._uncapturable(code)

    def result(self, built: CompiledFrame) -> Any:
        """What the hook gets for a compiled frame: an entry stored on the code under its guards."""
        guard_fn = built.guard_fn
        # Entries are shared by every wrapper of this code: the hook serves this one only under the compiler
        # that made it, in the globals holding its graphs (two pointer compares in C, ahead of the guards).
        entry = LoomEntry(built.translation.code, guard_fn, callback=self, globals=built.f_globals)
        entry.compiler = self
        entry.guard_fn = guard_fn
        entry.f_globals = built.f_globals
        entry.graph_count = len(built.compiled_graphs)
        entry.compile_seconds = built.seconds
        with _installed_lock:
            _installed.append((built.f_globals, built.installed))
        self._handed_out.setdefault(built.code, []).append(entry)
        return entry

    # -- compiling one frame ------------------------------------------------------------------------
    def build(self, frame: Any, code: types.CodeType, recompile_reason: str | None = None) -> CompiledFrame | None:
        """Translate the frame, compile its graphs with the backend and its guards; None if nothing was captured.

        Under ``fullgraph=True`` any graph break raises :class:`loom.Unsupported`.
        """
        with _saved_tensors_hooks_off(), gc_deferral.full_collections_deferred():
            try:
                return self._build(frame, code, recompile_reason)
            except BackendCompilerFailed:
                if not self.dynamic.keep_floats_static(code, self.dynamic.spec_for(code, frame.f_locals, frame.closure)):
                    raise
            return self._build(frame, code, recompile_reason)  # once more, its floats guarded constants

    def _build(self, frame: Any, code: types.CodeType, recompile_reason: str | None) -> CompiledFrame | None:
        started = time.perf_counter()
        f_globals = frame.f_globals
        f_locals = frame.f_locals
        dynamic = self.dynamic.spec_for(code, f_locals, frame.closure)
        translation = loom_symbolic.translate(code, f_locals, f_globals, frame.f_builtins, frame.closure,
                                              dynamic=dynamic)
        self._report_breaks(code, translation)
        if not translation.captured:
            return None
        framehook.check_replacement(code, translation.code)  # a bad rewrite is loom's bug: fail here, not in the caller
        built = CompiledFrame(code, translation, None, 0.0, 0.0, recompile_reason, f_globals)
        before = {name for name in f_globals if name.startswith("__loom_")}
        try:
            translation.install(f_globals, lambda graph: self._compile_graph(graph, built))
            built.guard_fn = loom_guards.compile(translation.guards)
            _check_guards_hold(built.guard_fn, frame, code)
        except BaseException:
            for name in [name for name in f_globals if name.startswith("__loom_") and name not in before]:
                f_globals.pop(name, None)  # no entry will load them
            raise
        built.installed = [name for name in f_globals if name.startswith("__loom_") and name not in before]
        self.dynamic.record(code, f_locals, frame.closure)
        built.seconds = time.perf_counter() - started
        self.bump("frames_compiled")
        self.bump("graphs", len(translation.graphs))
        self._log_compiled(code, built)
        return built

    def _compile_graph(self, graph: loom_symbolic.CapturedGraph, built: CompiledFrame) -> Callable[..., Any]:
        started = time.perf_counter()
        name, where = self.settings.backend_name, render.where(built.code)
        try:
            # Inside a DDP forward, an AOT backend compiles the graph split at DDP's gradient buckets.
            backend = distributed.backend_for(self.settings.backend, name)
            compiled = backend(graph.graph_module, list(graph.example_inputs))
        except Exception as exc:
            raise BackendCompilerFailed(name, f"raised {type(exc).__name__}: {exc}", graph.name, where) from exc
        if not callable(compiled):
            raise BackendCompilerFailed(name, f"returned {type(compiled).__name__}, not a callable", graph.name, where)
        built.backend_seconds += time.perf_counter() - started
        built.compiled_graphs[graph.name] = compiled
        if output_code_log.isEnabledFor(logging.INFO):
            output_code_log.info("%s", render.output_code(graph, compiled, self.settings.backend_name))
        return compiled if _runs_library_code_only(graph, compiled) else _hook_off(compiled)

    def _report_breaks(self, code: types.CodeType, translation: loom_symbolic.Translation) -> None:
        breaks = translation.breaks
        if not breaks:
            return
        self.bump("graph_breaks", self._break_counter.count(code, translation))
        if breaks_log.isEnabledFor(logging.INFO):
            verbose = breaks_log.isEnabledFor(logging.DEBUG)
            for item in breaks:
                breaks_log.info("graph break in %s: %s", render.where(code), render.reason(item.reason, verbose))
        if self.settings.fullgraph:
            raise Unsupported(breaks[0].reason)

    def _log_compiled(self, code: types.CodeType, built: CompiledFrame) -> None:
        if bytecode_log.isEnabledFor(logging.INFO):
            bytecode_log.info("%s", render.bytecode(built.translation))
        if graph_log.isEnabledFor(logging.INFO):
            verbose = graph_log.isEnabledFor(logging.DEBUG)
            for graph in built.translation.graphs:
                graph_log.info("%s", render.graph(graph, code, verbose))
        if guards_log.isEnabledFor(logging.INFO) and built.guard_fn is not None:
            guards_log.info("guards of %s:\n%s", render.where(code), render.guards(built.guard_fn))
            source = getattr(built.guard_fn, "source_code", None)
            if source and guards_log.isEnabledFor(logging.DEBUG):
                guards_log.debug("guard check source:\n%s", source)

    # -- reset ----------------------------------------------------------------------------------------
    def forget(self) -> None:
        """Drop the recompile counts and warnings (``loom.reset``)."""
        with _COMPILE_LOCK:
            self.policy.reset()
            self.dynamic.clear()
            self._gave_up.clear()
            self._internal_warned.clear()
            self._handed_out.clear()
            self._break_counter.clear()
            self._disk_tried.clear()


def _check_guards_hold(guard_fn: loom_guards.GuardFn, frame: Any, code: types.CodeType) -> None:
    """Every guard must hold on the very frame it was built from: one that cannot (a source that cannot
    be read back, a constant read differently) would make the entry miss on every call and recompile
    on identical inputs. One check per compile (microseconds); a failure is loom's bug."""
    if not guard_fn(frame):
        raise RuntimeError(
            f"the guards built for {render.where(code)} do not hold on the frame they were built from: "
            f"{why_failed(guard_fn, frame)}"
        )


def _hook_off(compiled: Callable[..., Any]) -> Callable[..., Any]:
    """``compiled`` run with the hook off for this thread: what a backend made is never compiled again
    (a custom backend's Python code, generated kernels' launchers loaded from a cache folder, functions
    registered with allow_in_graph). Costs ~130 ns a call."""
    set_callback = framehook.set_callback

    def run_compiled_graph(*args: Any) -> Any:
        previous = set_callback(None)
        try:
            return compiled(*args)
        finally:
            set_callback(previous)

    run_compiled_graph.compiled = compiled  # type: ignore[attr-defined]
    return run_compiled_graph


def _runs_library_code_only(graph: loom_symbolic.CapturedGraph, compiled: Any) -> bool:
    """Whether calling ``compiled`` can only reach library frames (the hook skips them for free): true
    for the ``eager`` backend's ``gm.forward`` when the graph (and its subgraphs) calls only torch's own
    ops and library code. An operator of another namespace (a ``torch.library.custom_op``) runs its
    Python implementation, user code that must not compile as a frame of its own."""
    gm = graph.graph_module
    if getattr(compiled, "__self__", None) is not gm or getattr(compiled, "__name__", None) != "forward":
        return False
    for module in gm.modules():
        sub_graph = getattr(module, "graph", None)
        if module is not gm and not isinstance(sub_graph, torch.fx.Graph):
            return False  # a submodule kept as a module: its forward may be user code
        for node in sub_graph.nodes if sub_graph is not None else ():
            if node.op == "call_module" and not isinstance(gm.get_submodule(node.target), torch.fx.GraphModule):
                return False
            if node.op == "call_function" and not _library_target(node.target):
                return False
    return True


# Operator namespaces whose kernels are torch's own: any other runs code registered by a program.
_TORCH_OP_NAMESPACES = frozenset({"aten", "prims", "higher_order"})


def _library_target(target: Any) -> bool:
    """Whether calling an FX ``call_function`` target reaches library code only."""
    if isinstance(target, torch._ops.HigherOrderOperator):
        # its eager implementation runs Python of its own (map's and cond's autograd trace their bodies with
        # make_fx, importing sympy and networkx on first use): frames it reaches must not compile
        return False
    if isinstance(target, (torch._ops.OpOverload, torch._ops.OpOverloadPacket)):
        return getattr(target, "namespace", None) in _TORCH_OP_NAMESPACES
    code = getattr(target, "__code__", None)
    return not isinstance(code, types.CodeType) or skipfiles.is_library_code(code)


def request(fn: Any) -> None:
    """Compile frames of ``fn`` (a Python function or method) even if it is library code.

    ``loom.compile(torch.nn.Sequential(...))`` compiles ``Sequential.forward``, which lives in torch.
    A SKIP mark the hook may already carry for that code (library code is skipped) is cleared.
    """
    code = getattr(getattr(fn, "__func__", fn), "__code__", None)
    if not isinstance(code, types.CodeType) or not skipfiles.is_library_code(code) or code in _requested_codes:
        return
    _requested_codes.add(code)
    if framehook.is_skipped(code) and not framehook.entries(code):
        framehook.clear(code)


def why_failed(guard_fn: Any, frame: Any) -> Any:
    """The guard failure of an entry for this frame (a ``GuardFailure`` str), never raising."""
    explain = getattr(guard_fn, "why_failed", None)
    if explain is None:
        return "a guard failed"
    try:
        return explain(frame) or "a guard failed"
    except Exception as exc:  # explaining must never break the program
        return f"a guard failed ({type(exc).__name__} while explaining it)"


def forget_everything() -> None:
    """Remove the names loom bound in user globals and forget recompile counts (``loom.reset``)."""
    with _installed_lock:
        installed = list(_installed)
        _installed.clear()
    for f_globals, names in installed:
        for name in names:
            f_globals.pop(name, None)
    _skipped_user_codes.clear()
    for compiler in live_compilers():
        compiler.forget()


def unskip_user_codes() -> None:
    """Clear the SKIP marks loom put on user code it could not capture, so that it is looked at again."""
    for code in list(_skipped_user_codes):
        if not framehook.entries(code):
            framehook.clear(code)
        _skipped_user_codes.discard(code)


@contextlib.contextmanager
def _saved_tensors_hooks_off() -> Iterator[None]:
    """Compile with the thread's saved-tensor hooks (``torch.utils.checkpoint``'s, ``save_on_cpu``) not
    applied: the FakeTensor ops of tracing would be packed as if the frame had run, and a non-reentrant
    checkpoint then counts more tensors saved by the first forward than by its recomputation."""
    previous = torch._C._autograd._saved_tensors_hooks_set_tracing(True)
    try:
        yield
    finally:
        torch._C._autograd._saved_tensors_hooks_set_tracing(previous)
