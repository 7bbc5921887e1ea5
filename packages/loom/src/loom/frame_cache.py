"""A disk cache of whole translations, so that a second process runs a compiled frame without translating it.

Translating a frame is the one step of a warm process's first call that the backends' caches cannot
spare: it makes a ``FakeTensorMode``, which imports all of ``torch._dynamo`` (0.5-0.8 s here;
docs/first-call.md). This cache keeps what a translation produced — the rewritten bytecode, the guards,
and for each graph the key under which its backend gives the compiled graph back
(:func:`loom_backends.reload`) — and in another process installs it without tracing anything.

- **The key of a code object** (:func:`code_key`): a digest of the code (bytecode, constants and nested
  code, names, flags, file, qualified name, first line), the compile settings (a registered backend by
  name; a callable backend is never cached), and the versions of Python, torch and loom's own sources.
- **An entry** (``<cache root>/frames/<code key>/<entry>.json``): the rewritten code (``marshal``), the
  guards as portable records (:func:`loom_guards.to_records`), each graph's global name and backend key,
  the size and modification time of every file whose code the translation ran (the frame's, each
  inlined function's: a user who edits a helper between two runs gets a fresh translation), and each
  library global the translator took as fixed, described so that another process can compare it.
- **Stored** after a compile whose translation has no graph break, no resume function, no symbolic sizes,
  whose code marshals (a constant that is a Python object only if a name carries it: :mod:`.portable_code`),
  whose guards are all portable, and
  whose graphs all have a backend key. **Served** when everything above matches, every guard rebuilds
  (:func:`loom_guards.from_records`) and holds on the frame, and the backend gives back every graph.
  Anything less is a miss, and the frame is translated as it would be without the cache.
- **Safety**: files are written under a temporary name and ``os.replace``d; an entry that does not parse
  or does not rebuild is ignored (a DEBUG line on ``loom.frame_cache``). ``LOOM_FRAME_CACHE=0`` turns
  the cache off, as does ``LOOM_GRAPH_CACHE=0`` (the backends' graphs would not reload anyway).
"""

from __future__ import annotations

import base64
import hashlib
import json
import logging
import os
import sys
import types
import weakref
from pathlib import Path
from typing import TYPE_CHECKING, Any

import loom_backends
import loom_guards
import loom_symbolic
from loom_backends import c_toolchain, graph_cache
from loom_backends.cache_counts import CacheCounts, switched_off
from loom_guards.portable_objects import code_digest
from loom_guards.portable_values import NotPortable, describe_value
from loom_symbolic.provenance import is_frozen_module

from . import portable_code

if TYPE_CHECKING:  # pragma: no cover
    from .frame_compiler import CompiledFrame
    from .settings import Settings

log = logging.getLogger("loom.frame_cache")

#: Bump when what an entry holds, or how it is served, changes.
FORMAT = 2

_counts = CacheCounts()
_sources_digest: str | None = None


def enabled() -> bool:
    """Whether frames are stored and served: ``LOOM_FRAME_CACHE`` is not ``0``/``false``/``no``/``off``
    and the backends' graph cache is on (their graphs would not reload otherwise)."""
    return not switched_off("LOOM_FRAME_CACHE") and graph_cache.enabled()


def cache_dir() -> Path:
    """``<cache root>/frames`` (the backends' cache root); read at every call."""
    return c_toolchain.cache_root() / "frames"


def stats() -> dict[str, int]:
    """This process's counts: ``hits``, ``misses``, ``stored``, ``bypassed`` and ``ignored``."""
    return _counts.stats()


# --- keys --------------------------------------------------------------------------------------------


def code_key(code: types.CodeType, settings: Settings) -> str | None:
    """The key of ``code``'s entries under ``settings``; None when the settings cannot be named in another
    process (a callable backend) or the backend cannot give its graphs back (no reloader: ``eager``)."""
    name = settings.backend_name
    if not loom_backends.has_reloader(name):
        return None
    try:
        if loom_backends.get(name) is not settings.backend:
            return None
    except (KeyError, ValueError):
        return None
    code_part = _code_digests.get(code)
    if code_part is None:  # asked at every miss of the code, and again to store what it compiled
        code_part = _code_digests[code] = code_digest(code)
    fields = (FORMAT, code_part, code.co_filename, code.co_firstlineno, name, settings.fullgraph, settings.dynamic,
              settings.recompile_limit, settings.raise_on_internal_error, settings.suppress_backend_errors,
              settings.strict, sys.version, _torch_version(), _loom_sources_digest())
    return hashlib.sha256(repr(fields).encode()).hexdigest()[:40]


_code_digests: weakref.WeakKeyDictionary[types.CodeType, str] = weakref.WeakKeyDictionary()


def _torch_version() -> str:
    import torch

    return str(torch.__version__)


def _loom_sources_digest() -> str:
    """Every source file of the translator, the guards and the facade, by path, size and modification time
    (read once per process): a translation made by other code is never served."""
    global _sources_digest
    if _sources_digest is None:
        digest = hashlib.sha256()
        for package in (loom_symbolic, loom_guards, sys.modules[__package__]):
            root = Path(package.__file__).parent
            for path in sorted(root.rglob("*.py")):
                stat = path.stat()
                digest.update(f"{path}:{stat.st_size}:{stat.st_mtime_ns}\n".encode())
        _sources_digest = digest.hexdigest()
    return _sources_digest


def _describe_global(module_name: str, name: str) -> Any:
    """:func:`describe_fixed` of library global ``module_name.name`` in this process; None when the module is
    not imported, lacks the name, or the value cannot be described."""
    module = sys.modules.get(module_name)
    if module is None or name not in vars(module):
        return None
    return describe_fixed(vars(module)[name])


def describe_fixed(value: Any) -> Any:
    """How a library global the translator took as fixed is compared with another process's: a module,
    class or function by name (and code), a constant by value, any other object by its class, named (a
    container's contents are guarded where the translation read them; a sentinel such as
    ``dataclasses._FIELD`` is what the library's code, whose version is in the key, made it); None when
    not even the class has a name."""
    try:
        return describe_value(value, identity=True)
    except NotPortable:
        pass
    try:
        return describe_value(value)
    except NotPortable:
        pass
    try:
        return {"instance_of": describe_value(type(value), identity=True)}
    except NotPortable:
        return None


def _file_stamp(path: str) -> list[int] | str | None:
    """Size and modification time of the file ``path``; ``"frozen"`` for a module frozen into the
    interpreter (``<frozen _collections_abc>``: it changes only with Python, whose version is in the key)."""
    if is_frozen_module(path):
        return "frozen"
    try:
        stat = os.stat(path)
    except OSError:
        return None
    return [stat.st_size, stat.st_mtime_ns]


# --- storing -----------------------------------------------------------------------------------------


def store(settings: Settings, code: types.CodeType, built: CompiledFrame) -> None:
    """Keep ``built`` (a compile that just succeeded) for other processes when it qualifies (module
    docstring); never raises."""
    if not enabled():
        return
    try:
        key = code_key(code, settings)
        record, why = (None, "the backend is a callable or has no reloader") if key is None else _record(code, built)
        if record is None:
            _counts.count("bypassed")
            log.debug("%s not kept: %s", code.co_qualname, why)
            return
        body = json.dumps(record, sort_keys=True)
        name = hashlib.sha256(body.encode()).hexdigest()[:32]
        folder = cache_dir() / key
        folder.mkdir(parents=True, exist_ok=True)
        c_toolchain.write_atomic(folder / f"{name}.json", body)
        _counts.count("stored")
    except Exception as exc:  # a cache must never fail a compile
        _counts.count("bypassed")
        log.debug("%s not kept: %s: %s", code.co_qualname, type(exc).__name__, exc)


def _record(code: types.CodeType, built: CompiledFrame) -> tuple[dict[str, Any] | None, str | None]:
    translation = built.translation
    if translation.breaks or translation.resume_functions:
        return None, "the translation has a graph break"
    if translation.rebuild_guards is not None or any(graph.is_dynamic for graph in translation.graphs):
        return None, "the graphs have symbolic sizes"
    provenance = translation.provenance
    if provenance is None:
        return None, "the translation says nothing of the code it ran"
    graphs = []
    for graph in translation.graphs:
        key = getattr(built.compiled_graphs.get(graph.name), "cache_key", None)
        if not isinstance(key, str):
            return None, f"the backend gives no key for graph {graph.name}"
        graphs.append([graph.name, key])
    if sorted(built.installed) != sorted(name for name, _ in graphs):
        return None, "the compile bound names other than its graphs"
    try:
        code_bytes, constants = portable_code.dump_code(translation.code)
    except NotPortable as exc:
        return None, f"the rewritten code holds a constant no name carries to another process ({exc})"
    guards, why = loom_guards.to_records(list(translation.guards))
    if guards is None:
        return None, why
    unpinned = provenance.unpinned_code()
    if unpinned:
        return None, f"code {unpinned[0].co_qualname} from {unpinned[0].co_filename} ran with no guard on it"
    files = {}
    for path in sorted(provenance.code_files | {code.co_filename}):
        stamp = _file_stamp(path)
        if stamp is None:
            return None, f"code from {path!r}, which is not a file"
        files[path] = stamp
    fixed = []
    for module_name, name in sorted(provenance.fixed_globals):
        described = _describe_global(module_name, name)
        if described is None:
            return None, f"library global {module_name}.{name} cannot be read back or described for another process"
        fixed.append([module_name, name, described])
    return {
        "format": FORMAT,
        "code": base64.b64encode(code_bytes).decode(),
        "constants": constants,
        "graphs": graphs,
        "guards": guards,
        "files": files,
        "fixed_globals": fixed,
    }, None


# --- serving -----------------------------------------------------------------------------------------


class Loaded:
    """An entry served from disk: the rewritten code (its graph names made fresh in this process), its
    guard check, and each graph's compiled function by the global name the code loads."""

    def __init__(self, code: types.CodeType, guard_fn: loom_guards.GuardFn, graphs: dict[str, Any], path: Path) -> None:
        self.code = code
        self.guard_fn = guard_fn
        self.graphs = graphs
        self.path = path


class _Pending:
    """An entry that rebuilt in this process but whose guards failed on the frame it was tried on: it is
    checked again on the code's later misses (a recompile, such as the training call after the inference
    call, is often what it was kept for), without reading or rebuilding it again."""

    __slots__ = ("guard_fn", "path", "record")

    def __init__(self, record: dict[str, Any], guard_fn: loom_guards.GuardFn, path: Path) -> None:
        self.record = record
        self.guard_fn = guard_fn
        self.path = path


def load(settings: Settings, frame: Any, code: types.CodeType, tried: dict[str, _Pending | None]) -> Loaded | None:
    """An entry for ``frame`` kept by another process, or None. ``tried`` holds the entries this process
    already looked at for ``code`` and grows: None for one that cannot serve here (read, rebuilt and refused
    once), a pending entry for one whose guards failed on an earlier frame (checked again). Never raises."""
    if not enabled():
        return None
    try:
        key = code_key(code, settings)
        if key is None:
            return None
        module = sys.modules.get(frame.f_globals.get("__name__"))
        if module is None or vars(module) is not frame.f_globals:
            # Guards on the frame's globals were recorded as their module's dict: a function made with other
            # globals (types.FunctionType(code, namespace)) would have them checked on the wrong dict.
            log.debug("%s not served: the frame's globals are not its module's", code.co_qualname)
            return None
        folder = cache_dir() / key
        try:
            names = sorted(os.listdir(folder))
        except OSError:
            _counts.count("misses")
            return None
        for name in names:
            if not name.endswith(".json") or name.startswith("."):
                continue
            if name not in tried:
                tried[name] = _rebuild(frame, folder / name)
            pending = tried[name]
            if pending is None or not pending.guard_fn(frame):
                continue
            tried[name] = None  # served now, or unusable: either way not tried again
            loaded = _serve(settings, pending)
            if loaded is not None:
                _counts.count("hits")
                return loaded
        _counts.count("misses")
    except Exception as exc:  # a cache must never fail a call
        _counts.count("ignored")
        log.debug("frame cache of %s ignored: %s: %s", code.co_qualname, type(exc).__name__, exc)
    return None


def _rebuild(frame: Any, path: Path) -> _Pending | None:
    """The entry at ``path`` read, checked against this process (files, fixed globals) and its guards rebuilt
    on ``frame``; None when it cannot serve in this process."""
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        _ignored(path, f"unreadable ({exc})")
        return None
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        _ignored(path, "another format")
        return None
    for file, stamp in record["files"].items():
        if _file_stamp(file) != stamp:
            log.debug("%s not served: %s changed", path.name, file)
            return None
    for module_name, name, described in record["fixed_globals"]:
        if _describe_global(module_name, name) != described:
            log.debug("%s not served: library global %s.%s differs", path.name, module_name, name)
            return None
    guards, why = loom_guards.from_records(record["guards"], frame)
    if guards is None:
        log.debug("%s not served: %s", path.name, why)
        return None
    return _Pending(record, loom_guards.compile(guards), path)


def _serve(settings: Settings, entry: _Pending) -> Loaded | None:
    """An entry whose guards hold, made ready to install: its code and each graph from the backend."""
    record, path = entry.record, entry.path
    try:
        new_code = portable_code.load_code(base64.b64decode(record["code"]), record["constants"])
    except NotPortable as exc:
        _ignored(path, str(exc))
        return None
    graphs: dict[str, Any] = {}
    renamed: dict[str, str] = {}
    for old_name, graph_key in record["graphs"]:
        compiled = loom_backends.reload(settings.backend_name, graph_key)
        if compiled is None:
            log.debug("%s not served: the backend no longer has graph %s", path.name, old_name)
            return None
        fresh = loom_symbolic.new_graph_name()
        renamed[old_name] = fresh
        graphs[fresh] = compiled
    new_code = new_code.replace(co_names=tuple(renamed.get(name, name) for name in new_code.co_names))
    return Loaded(new_code, entry.guard_fn, graphs, path)


def _ignored(path: Path, why: str) -> None:
    _counts.count("ignored")
    log.debug("frame cache entry %s ignored: %s", path, why)
