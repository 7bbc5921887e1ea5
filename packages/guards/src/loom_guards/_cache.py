"""The on-disk cache of accelerators built at first import, one entry per (Python, torch, sources).

An index install of loom-guards is built without torch (pip's isolated build environment has none),
so its wheel carries the C++ sources (``loom_guards/_accel_src/``) instead of the accelerator, and
the first ``import loom_guards`` next to a given torch compiles it here, the way
``torch.utils.cpp_extension.load`` and Triton's launchers do. The accelerator is tied to the exact
torch it was compiled against, hence the key.

Layout, under :func:`cache_root` (``$LOOM_CACHE_DIR/guards``, else ``$XDG_CACHE_HOME/loom/guards``,
else ``~/.cache/loom/guards``)::

    <cache_tag>-torch<version>-<digest>/     one entry (see :func:`entry_name`)
        _accel<EXT_SUFFIX>                     the accelerator, published by an atomic rename
        build.log                              the compiler's output of the last build
        failed.json                            a failed build: why, and what would fix it
        lock                                   flock'ed by the process that builds

A failed build is not retried on every import (a build takes tens of seconds): ``failed.json``
answers later imports at the cost of one read, until the compiler set-up changes (another ``$CXX``,
a compiler installed or upgraded), the file is deleted, or ``LOOM_GUARDS_REBUILD=1`` is set.
"""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from . import _build
from ._build import BuildProblem

MODULE_NAME = "loom_guards._accel"
FAILED = "failed.json"
LOG = "build.log"
# Environment variables that change which compiler runs or how: a failed build is retried when one
# changes (the user set $CXX, or added a flag, after reading the warning).
# ($PATH is not one: the compiler it finds is compared instead, and activating a venv changes $PATH.)
COMPILER_ENV = ("CC", "CXX", "CFLAGS", "CXXFLAGS", "CPPFLAGS", "LDFLAGS", "LDSHARED")


def cache_root() -> Path:
    """Where built accelerators live (see the module docstring); ``LOOM_CACHE_DIR`` is shared with the
    other loom caches (loom-backends keeps Triton modules in ``$LOOM_CACHE_DIR/triton``)."""
    root = os.environ.get("LOOM_CACHE_DIR")
    if root:
        return Path(root) / "guards"
    # XDG: an unset, empty or relative XDG_CACHE_HOME means ~/.cache.
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "loom" / "guards"


def source_dir() -> Path:
    """The accelerator's C++ sources: shipped in the wheel, or the repository's ``csrc/`` (editable)."""
    package = Path(__file__).resolve().parent
    shipped = package / "_accel_src"
    return shipped if shipped.is_dir() else package.parent.parent / "csrc"


def entry_name(sources: Path) -> str:
    """``cpython-311-torch2.13.0-<16 hex digits>``: what an accelerator built here is valid for.

    The digest covers the sources and the build recipe (``_build.recipe_digest``), the extension
    suffix (interpreter ABI and platform) and the torch build beyond its version string (git
    revision, CUDA version, C++ ABI), none of which a cached object may differ in.
    """
    import torch

    h = hashlib.sha256(_build.recipe_digest(sources).encode())
    for part in (
        sysconfig.get_config_var("EXT_SUFFIX"),
        torch.__version__,
        getattr(torch.version, "git_version", ""),
        str(getattr(torch.version, "cuda", None)),
        str(bool(torch._C._GLIBCXX_USE_CXX11_ABI)),
    ):
        h.update(f"\0{part}".encode())
    return f"{sys.implementation.cache_tag}-torch{torch.__version__}-{h.hexdigest()[:16]}"


def shared_object_name() -> str:
    """``_accel.cpython-311-x86_64-linux-gnu.so``: the name ``PyInit__accel`` is looked up under."""
    return "_accel" + sysconfig.get_config_var("EXT_SUFFIX")


def toolchain_fingerprint() -> dict[str, Any]:
    """What a failed build depended on that the user may change to fix it (compared, not hashed)."""
    command = _build.compiler_command()
    found = shutil.which(command[0]) if command else None
    stamp = None
    if found:
        with contextlib.suppress(OSError):
            stamp = os.stat(found).st_mtime_ns
    return {"compiler": found, "compiler_mtime": stamp, "env": {k: os.environ.get(k) for k in COMPILER_ENV}}


def load_module(path: Path) -> ModuleType:
    """Import the accelerator from ``path`` (a cache entry) as ``loom_guards._accel``."""
    spec = importlib.util.spec_from_file_location(MODULE_NAME, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path} as an extension module")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    sys.modules[MODULE_NAME] = module
    package = sys.modules.get(MODULE_NAME.rpartition(".")[0])
    if package is not None:  # what a regular import of a submodule does too
        package._accel = module  # type: ignore[attr-defined]
    return module


def _rebuild_requested() -> bool:
    return os.environ.get("LOOM_GUARDS_REBUILD", "") not in ("", "0")


def load_or_build(announce: Any = None) -> ModuleType:
    """The accelerator for this torch from the cache, built first if needed; :class:`BuildProblem` if
    it cannot be had. ``announce(text)`` receives the progress line (default: stderr)."""
    import torch

    announce = announce or _to_stderr
    sources = source_dir()
    if not (sources / _build.SOURCES[0]).exists():
        raise BuildProblem(
            f"its C++ sources are not installed (looked in {sources})",
            "reinstall loom-guards from its wheel or sdist",
        )
    entry = cache_root() / entry_name(sources)
    target = entry / shared_object_name()
    rebuild = _rebuild_requested()
    if not rebuild:
        # The fast paths take no lock: the object is only ever published whole (os.replace).
        if target.exists():
            return _load_cached(target)
        _raise_if_failed_before(entry)
    settings = _build.torch_settings()
    _build.check_prerequisites(settings)
    with contextlib.ExitStack() as stack:
        try:
            entry.mkdir(parents=True, exist_ok=True)
            stack.enter_context(_locked(entry / "lock", announce))
        except OSError as exc:
            raise BuildProblem(
                f"the cache directory {entry} is not usable ({exc})",
                "set LOOM_CACHE_DIR to a writable directory",
            ) from None
        # Another process may have built it (or failed to) while this one waited for the lock.
        if not rebuild:
            if target.exists():
                return _load_cached(target)
            _raise_if_failed_before(entry)
        seconds = _build_into(entry, target, sources, settings, announce, torch.__version__)
    announce(f" done in {seconds:.0f} s\n")
    return _load_cached(target)


def _load_cached(target: Path) -> ModuleType:
    try:
        return load_module(target)
    except (ImportError, OSError) as exc:
        raise BuildProblem(
            f"the cached build {target} does not load ({exc})",
            f"delete {target.parent} and import again",
        ) from None


def _build_into(
    entry: Path, target: Path, sources: Path, settings: dict[str, Any], announce: Any, version: str
) -> float:
    """Build in a child process into a temporary directory of ``entry``, then publish atomically.

    A child process keeps the compiler's output off the user's terminal (it goes to ``build.log``)
    and keeps setuptools' state out of this process.
    """
    tag = f"cp{sys.version_info.major}{sys.version_info.minor}"
    announce(f"loom-guards: building the C++ guard accelerator for torch {version} on {tag} "
             f"(once; cached in {entry})...")
    started = time.perf_counter()
    tmp = Path(tempfile.mkdtemp(prefix="tmp-", dir=entry))
    try:
        log = tmp / LOG
        with log.open("wb") as out:
            # -P: do not put loom_guards/ on sys.path (its module names must not shadow anything).
            code = subprocess.run(
                [sys.executable, "-P", _build.__file__, str(sources), str(tmp), json.dumps(settings)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT, check=False,
            ).returncode
        text = log.read_text(errors="replace")
        os.replace(log, entry / LOG)
        built = _built_object(text) if code == 0 else None
        if built is None:
            announce(" failed\n")
            problem = BuildProblem(
                f"its build failed: {_first_error(text, code)}",
                f"see the compiler output in {entry / LOG}; once the cause is fixed, delete "
                f"{entry / FAILED} (or set LOOM_GUARDS_REBUILD=1) and import again",
            )
            _write_failure(entry, problem)
            raise problem
        os.replace(built, target)
        (entry / FAILED).unlink(missing_ok=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return time.perf_counter() - started


def _built_object(output: str) -> Path | None:
    """The shared object the child reported building, if it exists."""
    for line in reversed(output.splitlines()):
        if line.startswith(_build.BUILT_PREFIX):
            path = Path(line[len(_build.BUILT_PREFIX) :])
            return path if path.is_file() else None
    return None


def _first_error(output: str, code: int) -> str:
    """What went wrong, in one line for the warning: the compiler's first error, else the child's."""
    lines = [line.strip() for line in output.splitlines() if line.strip()]
    for line in lines:
        if ": error:" in line or ": fatal error:" in line:  # GCC's and clang's diagnostics
            return line[:300]
    for line in reversed(lines):
        if line.startswith(_build.FAILED_PREFIX):
            return line[len(_build.FAILED_PREFIX) :][:300]
    return f"the build process exited with status {code}" + (f": {lines[-1][:300]}" if lines else "")


def _write_failure(entry: Path, problem: BuildProblem) -> None:
    record = {"reason": problem.reason, "fix": problem.fix, "toolchain": toolchain_fingerprint()}
    partial = entry / f"{FAILED}.{os.getpid()}"
    partial.write_text(json.dumps(record, indent=1))
    os.replace(partial, entry / FAILED)


def _raise_if_failed_before(entry: Path) -> None:
    """Re-raise a recorded failure, unless what it depended on changed since (then build again)."""
    try:
        record = json.loads((entry / FAILED).read_text())
    except (OSError, ValueError):
        return
    if record.get("toolchain") != toolchain_fingerprint():
        return
    raise BuildProblem(str(record.get("reason")), str(record.get("fix")))


@contextlib.contextmanager
def _locked(path: Path, announce: Any) -> Iterator[None]:
    """Hold an exclusive ``flock`` on ``path``: one process builds an entry, the others wait for it."""
    import fcntl

    with path.open("a") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            announce(f"loom-guards: waiting for another process building the C++ guard accelerator in "
                     f"{path.parent}...\n")
            fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _to_stderr(text: str) -> None:
    if sys.stderr is not None:  # None under pythonw and some embedders: build silently then
        sys.stderr.write(text)
        sys.stderr.flush()
