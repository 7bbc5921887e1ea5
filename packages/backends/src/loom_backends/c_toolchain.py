"""The system C compiler for loom's CPU code generator: build, cache on disk, load, or say why not.

>>> from loom_backends import c_toolchain
>>> lib = c_toolchain.load_library("int answer(void) { return 42; }")   # doctest: +SKIP
>>> lib.answer()                                                          # doctest: +SKIP
42

- The compiler is ``$CC`` (split like a shell word list, so ``CC="ccache gcc"`` works), else ``cc``.
- Flags: :data:`COMPILE_FLAGS` for the host (``-O3 -march=native -fopenmp -fno-math-errno -shared
  -fPIC``), then the source, then ``extra_flags``, then :data:`LINK_FLAGS` (``-lm``, which on glibc also
  brings the vector math library ``omp simd`` loops call). Never ``-ffast-math``: linking with it makes
  gcc add a constructor that sets flush-to-zero for the whole process. :data:`TUNING_FLAGS` come after
  :data:`COMPILE_FLAGS` where the compiler accepts them (tried by the probe below).
- The shared object is cached under :func:`cache_dir` (``$LOOM_CACHE_DIR/c``, else
  ``$XDG_CACHE_HOME/loom/c``, else ``~/.cache/loom/c``) as ``<key>.so`` next to its source ``<key>.c``;
  the key hashes the source, the compiler's identity (resolved path and ``--version`` output, asked once
  per process) and the flags. Files are written to a temporary name in the same directory, then
  ``os.replace``d: several processes may build the same key at once, and every reader sees a whole file.
  A process that finds ``<key>.so`` runs no compile (:func:`compiler_invocations` stays 0).
- Before its first build a compiler is probed (a trivial OpenMP file, built with the tuning flags, and
  without them if that fails); a passed probe is remembered on disk (``probe-<identity>.ok``, which also
  names the tuning flags the compiler took), so it costs a compile per machine and compiler, not per process.
- What cannot be had raises :class:`ToolchainUnavailable` whose ``reason`` names the cause; a backend then
  calls :func:`warn_fallback` (one :class:`~loom_backends.CompilerWarning` per cause and process) and
  runs the graph through ATen.
"""

from __future__ import annotations

import contextlib
import ctypes
import hashlib
import os
import platform
import shlex
import shutil
import subprocess
import tempfile
import threading
import warnings
from collections.abc import Sequence
from pathlib import Path

from .diagnostics import CompilerWarning

COMPILE_FLAGS: tuple[str, ...] = ("-O3", "-march=native", "-fopenmp", "-fno-math-errno", "-shared", "-fPIC")
"""Flags before the source file (see the module docstring for why there is no ``-ffast-math``)."""

TUNING_FLAGS: tuple[str, ...] = (
    ("-mprefer-vector-width=512",) if platform.machine().lower() in ("x86_64", "amd64") else ()
)
"""Host tuning used where the compiler accepts it. On x86-64, gcc 12 with ``-march=native`` tunes for
256-bit vectors even where AVX-512 is there: ``omp simd`` loops and their libmvec calls (``expf``) then run
8 floats wide instead of 16. Measured here (AVX-512 Xeon, one thread, CPU time per call, 2026-12-05): the
pointwise chain's inference 3.2 -> 1.8 ms and its training step 9.0 -> 5.8 ms; the memory-bound workloads
(norms, convnet, GPT-2, transformer block) unchanged within noise. On a CPU without AVX-512 the flag
changes nothing. A compiler that rejects it (an old gcc, another target) builds without it."""

LINK_FLAGS: tuple[str, ...] = ("-lm",)
"""Libraries after the source file and the caller's ``extra_flags`` (order matters to the linker)."""

# Bump when the build recipe changes in a way the flags do not show: every cached object is rebuilt.
RECIPE_VERSION = "2"
# A compiler that has not finished after this long counts as failing (a hung wrapper script).
COMPILE_TIMEOUT_S = 600.0
# How many lines of the compiler's stderr a reason quotes.
STDERR_LINES = 8

_PROBE_SOURCE = """\
#include <omp.h>
int loom_probe(int n) {
    int total = 0;
#pragma omp parallel for reduction(+:total)
    for (int i = 0; i < n; i++) total += i;
    return total + (omp_get_max_threads() > 0 ? 0 : 1);
}
"""
_TRIVIAL_SOURCE = "int loom_probe(int n) { return n; }\n"

# Causes, in ToolchainUnavailable.cause: what a caller (or a test) may branch on.
NO_COMPILER = "no-compiler"
COMPILER_FAILS = "compiler-fails"
NO_OPENMP = "no-openmp"
SOURCE_FAILS = "source-fails"
LOAD_FAILS = "load-fails"
CACHE_UNUSABLE = "cache-unusable"


class ToolchainUnavailable(RuntimeError):
    """The C toolchain cannot build or load a library here.

    ``reason`` is one sentence naming the cause (what a warning prints); ``cause`` is one of
    ``"no-compiler"``, ``"compiler-fails"``, ``"no-openmp"``, ``"source-fails"`` (generated source that
    does not compile: a loom bug; the reason quotes the compiler and names the kept source),
    ``"load-fails"`` and ``"cache-unusable"``.
    """

    def __init__(self, reason: str, cause: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.cause = cause


_lock = threading.RLock()
_invocations = 0
_identities: dict[tuple[str, ...], str | ToolchainUnavailable] = {}
_probed: dict[str, ToolchainUnavailable | tuple[str, ...]] = {}
_loaded: dict[tuple[tuple[str, ...], str, tuple[str, ...]], ctypes.CDLL] = {}
_key_locks: dict[str, threading.Lock] = {}
_warned: set[str] = set()


def compiler_command() -> list[str]:
    """The compiler and its leading arguments: ``$CC`` split as shell words, else ``["cc"]``."""
    words = shlex.split(os.environ.get("CC", ""))
    return words or ["cc"]


def cache_root() -> Path:
    """loom's cache directory: ``$LOOM_CACHE_DIR``, else ``$XDG_CACHE_HOME/loom`` (an absolute
    ``XDG_CACHE_HOME`` only, as the XDG spec says), else ``~/.cache/loom``. Read at every call."""
    root = os.environ.get("LOOM_CACHE_DIR")
    if root:
        return Path(root)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    base = Path(xdg) if os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "loom"


def cache_dir() -> Path:
    """Where built libraries live: ``<cache_root()>/c`` (``$LOOM_CACHE_DIR/c``, ``~/.cache/loom/c``...)."""
    return cache_root() / "c"


def compiler_invocations() -> int:
    """How many compiles this process ran (probes and builds; the ``--version`` query is not one)."""
    return _invocations


def build_library(source: str, *, extra_flags: Sequence[str] = ()) -> Path:
    """The shared object built from C ``source``: from the disk cache, else compiled and cached.

    ``extra_flags`` go after the source (libraries, ``-D`` macros, an ``-O`` that overrides ``-O3``) and
    are part of the cache key. Raises :class:`ToolchainUnavailable`.
    """
    extra = tuple(extra_flags)
    command = compiler_command()
    identity = _identity(tuple(command))
    root = cache_dir()
    tuning = _ensure_probed(command, identity, root)  # a marker read once per process, after the first probe
    key = _digest(RECIPE_VERSION, identity, *COMPILE_FLAGS, *tuning, *extra, *LINK_FLAGS, source)
    target = root / f"{key}.so"
    if target.exists():  # published whole by os.replace: no lock needed to read it
        return target
    with _key_lock(key):
        if target.exists():
            return target
        _make_dir(root)
        _write_marker(_marker(root, identity), identity, tuning)  # this cache may be new to a probed compiler
        kept = root / f"{key}.c"
        write_atomic(kept, source)
        result = _compile_into(command, [*COMPILE_FLAGS, *tuning, str(kept), *extra, *LINK_FLAGS], target)
        if result is not None:
            raise ToolchainUnavailable(
                f"loom's generated C source does not compile (a loom bug; please report it with the source "
                f"kept in {kept}): {result}",
                SOURCE_FAILS,
            )
    return target


def load_library(source: str, *, extra_flags: Sequence[str] = ()) -> ctypes.CDLL:
    """:func:`build_library`, then ``dlopen`` it; memoised per process (same compiler, source and flags:
    the same ``CDLL``). A cached object that does not load is rebuilt once. Raises
    :class:`ToolchainUnavailable`."""
    memo_key = (tuple(compiler_command()), source, tuple(extra_flags))
    lib = _loaded.get(memo_key)
    if lib is not None:
        return lib
    path = build_library(source, extra_flags=extra_flags)
    try:
        lib = ctypes.CDLL(str(path))
    except OSError:
        # A cached object damaged on disk (a full disk, a copied cache): build it once more.
        with contextlib.suppress(OSError):
            path.unlink()
        path = build_library(source, extra_flags=extra_flags)
        try:
            lib = ctypes.CDLL(str(path))
        except OSError as exc:
            raise ToolchainUnavailable(f"the compiled library {path} does not load ({exc})", LOAD_FAILS) from None
    with _lock:
        return _loaded.setdefault(memo_key, lib)


def warn_fallback(reason: str) -> None:
    """Warn (a :class:`~loom_backends.CompilerWarning`) that a graph runs through ATen because of
    ``reason``; once per distinct reason in a process, so a model with many graphs warns once."""
    with _lock:
        if reason in _warned:
            return
        _warned.add(reason)
    warnings.warn(
        f"loom's C backend cannot compile here: {reason}. The graph runs through ATen (correct, not faster).",
        CompilerWarning,
        stacklevel=2,
    )


# --- the compiler ------------------------------------------------------------------------------------


def _identity(command: tuple[str, ...]) -> str:
    """The resolved compiler path and its ``--version`` output, asked once per process and command."""
    known = _identities.get(command)
    if known is None:
        known = _ask_identity(command)
        with _lock:
            known = _identities.setdefault(command, known)
    if isinstance(known, ToolchainUnavailable):
        raise ToolchainUnavailable(known.reason, known.cause)
    return known


def _ask_identity(command: tuple[str, ...]) -> str | ToolchainUnavailable:
    found = shutil.which(command[0])
    if found is None:
        named = "$CC names" if os.environ.get("CC", "").strip() else "the default compiler"
        return ToolchainUnavailable(
            f"no C compiler found: {named} {command[0]!r}, which is not an executable program "
            f"(install gcc or clang, or set CC to one)",
            NO_COMPILER,
        )
    resolved = os.path.realpath(found)
    try:
        run = subprocess.run(
            [found, *command[1:], "--version"], stdin=subprocess.DEVNULL, capture_output=True,
            text=True, errors="replace", timeout=60, env=_compiler_env(), check=False,
        )
        version = f"{run.returncode}\n{run.stdout}"
    except (OSError, subprocess.SubprocessError) as exc:
        version = f"unrunnable: {type(exc).__name__}"  # the probe reports the failure in full
    return f"{resolved}\n{' '.join(command[1:])}\n{version}"


def _ensure_probed(command: list[str], identity: str, root: Path) -> tuple[str, ...]:
    """Compile, link and load a trivial OpenMP library once per compiler, and find which of
    :data:`TUNING_FLAGS` it accepts (remembered on disk); returns those flags."""
    marker = _marker(root, identity)
    known = _probed.get(marker.name)
    if known is None:
        known = _read_marker(marker)
        if known is None:
            _make_dir(root)
            known = _probe(command)
            if not isinstance(known, ToolchainUnavailable):
                _write_marker(marker, identity, known)
        with _lock:
            known = _probed.setdefault(marker.name, known)
    if isinstance(known, ToolchainUnavailable):
        raise ToolchainUnavailable(known.reason, known.cause)
    return known


def _marker(root: Path, identity: str) -> Path:
    return root / f"probe-{_digest(RECIPE_VERSION, identity, *COMPILE_FLAGS, *TUNING_FLAGS, *LINK_FLAGS)}.ok"


def _write_marker(marker: Path, identity: str, tuning: tuple[str, ...]) -> None:
    if not marker.exists():
        write_atomic(marker, f"tuning: {' '.join(tuning)}\n{identity}")


def _read_marker(marker: Path) -> tuple[str, ...] | None:
    """The tuning flags a passed probe recorded, or None where no probe passed (or the marker is unreadable)."""
    try:
        first = marker.read_text().split("\n", 1)[0]
    except OSError:
        return None
    if not first.startswith("tuning:"):
        return None
    return tuple(first[len("tuning:"):].split())


def _probe(command: list[str]) -> ToolchainUnavailable | tuple[str, ...]:
    """The tuning flags the compiler builds a working OpenMP probe with (all of :data:`TUNING_FLAGS`, else
    none: one compile where it takes them), or why it cannot build one."""
    name = command[0]
    with tempfile.TemporaryDirectory(prefix="loom-c-probe-") as tmp:
        src = Path(tmp) / "probe.c"
        src.write_text(_PROBE_SOURCE)
        out = Path(tmp) / "probe.so"
        tuning = TUNING_FLAGS
        error = _compile_into(command, [*COMPILE_FLAGS, *tuning, str(src), *LINK_FLAGS], out)
        if error is not None and tuning:
            tuning = ()
            error = _compile_into(command, [*COMPILE_FLAGS, str(src), *LINK_FLAGS], out)
        if error is None:
            try:
                ok = ctypes.CDLL(str(out)).loom_probe(4) == 6
            except (OSError, AttributeError) as exc:
                return ToolchainUnavailable(
                    f"the C compiler {name!r} builds libraries that do not load ({exc})", COMPILER_FAILS
                )
            return tuning if ok else ToolchainUnavailable(
                f"the C compiler {name!r} builds a wrong OpenMP reduction", COMPILER_FAILS
            )
        # Tell a compiler that fails on everything from one without OpenMP.
        src.write_text(_TRIVIAL_SOURCE)
        flags = [f for f in COMPILE_FLAGS if f != "-fopenmp"]
        plain = _compile_into(command, [*flags, str(src), *LINK_FLAGS], out)
        if plain is not None:
            return ToolchainUnavailable(
                f"the C compiler {name!r} fails on a trivial file with {' '.join(flags)}: {plain}", COMPILER_FAILS
            )
        return ToolchainUnavailable(
            f"the C compiler {name!r} has no OpenMP (-fopenmp fails: {error}); install libgomp/libomp or "
            f"set CC to a compiler with OpenMP",
            NO_OPENMP,
        )


def _compile_into(command: Sequence[str], args: Sequence[str], target: Path) -> str | None:
    """Run the compiler with ``args -o <temp>`` and publish the temp file as ``target``; None on
    success, else the reason (exit status and the first lines of its stderr)."""
    global _invocations
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
    os.close(fd)
    try:
        with _lock:
            _invocations += 1
        try:
            run = subprocess.run(
                [*command, *args, "-o", tmp], stdin=subprocess.DEVNULL, capture_output=True, text=True,
                errors="replace", timeout=COMPILE_TIMEOUT_S, env=_compiler_env(), check=False,
            )
        except subprocess.TimeoutExpired:
            return f"it did not finish within {COMPILE_TIMEOUT_S:.0f} s"
        except OSError as exc:
            return f"it could not be run ({exc})"
        if run.returncode != 0:
            lines = [line for line in run.stderr.splitlines() if line.strip()][:STDERR_LINES]
            said = " | ".join(line.strip() for line in lines) or "no output"
            return f"exit status {run.returncode}: {said}"
        if os.path.getsize(tmp) == 0:
            return "it exited with status 0 but wrote no library"
        os.replace(tmp, target)
        return None
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def _compiler_env() -> dict[str, str]:
    # English diagnostics whatever the user's locale (they are quoted in warnings and bug reports).
    return {**os.environ, "LC_ALL": "C"}


# --- files -------------------------------------------------------------------------------------------


def _digest(*parts: str) -> str:
    h = hashlib.sha256()
    for part in parts:
        h.update(part.encode())
        h.update(b"\0")
    return h.hexdigest()[:32]


def _make_dir(root: Path) -> None:
    try:
        root.mkdir(parents=True, exist_ok=True)
        if not os.access(root, os.W_OK):
            raise PermissionError("not writable")
    except OSError as exc:
        raise ToolchainUnavailable(
            f"the cache directory {root} is not usable ({exc}); set LOOM_CACHE_DIR to a writable directory",
            CACHE_UNUSABLE,
        ) from None


def write_atomic(path: Path, content: str | bytes) -> None:
    """Write ``content`` to ``path`` so that a reader in another process sees the old file or the whole new
    one, never part of it (a temporary file in the same directory, then ``os.replace``)."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb" if isinstance(content, bytes) else "w") as handle:
            handle.write(content)
        os.replace(tmp, path)
    except BaseException:
        if os.path.exists(tmp):
            os.unlink(tmp)
        raise


def _key_lock(key: str) -> threading.Lock:
    """One lock per key: threads of one process build a key once (processes race safely instead)."""
    with _lock:
        return _key_locks.setdefault(key, threading.Lock())
