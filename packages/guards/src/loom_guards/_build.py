"""How the C++ accelerator (``loom_guards._accel``) is compiled: the one recipe, shared by two builders.

* ``hatch_build.py`` (the wheel build hook) loads this file by path and calls :func:`build_extension`
  when torch is importable at install time (editable and ``--no-build-isolation`` installs);
* ``_cache.py`` runs this file as a script in a child process at first import, when no usable
  accelerator was installed (an isolated ``pip install`` has no torch to build against).

It must therefore import nothing from ``loom_guards`` (importing the package would import torch and
try to load the accelerator this file is building) and only the standard library at module level.
It drives setuptools' ``build_ext`` so that the interpreter's own compiler settings (``sysconfig``)
are used, and compiles the translation units in parallel (one compiler per unit, up to the CPU count).

Run as a script: ``python -P _build.py SOURCE_DIR BUILD_DIR SETTINGS_JSON`` compiles into
``BUILD_DIR`` and ends its output with a line starting with :data:`BUILT_PREFIX` (then the shared
object's path) or :data:`FAILED_PREFIX` (then the error).
"""

from __future__ import annotations

import hashlib
import json
import os
import shlex
import shutil
import subprocess
import sys
import sysconfig
import traceback
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

EXTENSION = "loom_guards._accel"
# The translation units of the accelerator (accel.h says which does what), relative to the source
# directory (csrc/ in the repository, loom_guards/_accel_src/ in an installed wheel). The headers are
# dependencies: setuptools rebuilds when one changes, and the cache key hashes them.
SOURCES = ["module.cpp", "program.cpp", "lower.cpp", "run.cpp", "fetch.cpp", "values.cpp", "state.cpp"]
HEADERS = ["accel.h", "tensor.h", "state.h", "dict_layout_313.h"]
# Our own code builds warning-free; torch's headers come in through -isystem.
EXTRA_COMPILE_ARGS = [
    "-std=c++20",
    "-Wall",
    "-Wextra",
    "-Werror",
    "-Wno-unused-parameter",
    "-Wno-missing-field-initializers",
    "-Wno-cast-function-type",
    "-fvisibility=hidden",
]
# -g0: the interpreter's CFLAGS carry -g, and torch's headers make that debug info large.
OPTIMIZE_ARGS = ["-O2", "-g0"]
DEBUG_ARGS = ["-O0", "-g"]
# torch's libraries are already loaded (by `import torch`, which loom_guards does first) when the
# accelerator is imported: the dynamic loader matches them by soname, no rpath needed.
LIBRARIES = ["c10", "torch_cpu", "torch_python"]


class BuildProblem(Exception):
    """The accelerator cannot be built here: ``reason`` says why, ``fix`` what would make it work."""

    def __init__(self, reason: str, fix: str) -> None:
        super().__init__(reason)
        self.reason = reason
        self.fix = fix


def debug_build() -> bool:
    """Whether ``LOOM_GUARDS_DEBUG=1`` asks for an unoptimised build with debug information."""
    return os.environ.get("LOOM_GUARDS_DEBUG") == "1"


def torch_settings() -> dict[str, Any]:
    """What the build needs from the running torch (imports torch and its ``cpp_extension`` helpers)."""
    import torch

    try:
        from torch.utils import cpp_extension
    except ImportError as exc:  # it imports setuptools
        raise BuildProblem(f"torch.utils.cpp_extension is not importable ({exc})", "pip install setuptools") from None
    return {
        "version": torch.__version__,
        "includes": cpp_extension.include_paths(),
        "libdirs": cpp_extension.library_paths(),
        "cxx11_abi": int(bool(torch._C._GLIBCXX_USE_CXX11_ABI)),
        "debug": debug_build(),
    }


def recipe_digest(source_dir: Path) -> str:
    """A hash of everything that shapes the built object besides torch: the sources and this recipe.

    This file is hashed whole, so any change to the flags or to how they are applied gives a new key.
    """
    h = hashlib.sha256()
    for name in [*SOURCES, *HEADERS]:
        data = (source_dir / name).read_bytes()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    h.update(Path(__file__).read_bytes())
    h.update(f"debug={debug_build()}".encode())
    return h.hexdigest()


def compiler_command() -> list[str]:
    """The C++ compiler command setuptools will run (``$CXX``, else the one CPython was built with)."""
    return shlex.split(os.environ.get("CXX") or sysconfig.get_config_var("CXX") or "c++")


def check_prerequisites(settings: dict[str, Any]) -> None:
    """Raise :class:`BuildProblem` when something the build needs is missing (cheap: no compiler runs)."""
    try:
        import setuptools  # noqa: F401  (the compiler driver)
    except ImportError as exc:
        raise BuildProblem(f"setuptools is not importable ({exc})", "pip install setuptools") from None
    command = compiler_command()
    if not command or shutil.which(command[0]) is None:
        name = command[0] if command else "$CXX"
        raise BuildProblem(
            f"no C++ compiler: {name!r} was not found",
            "install a C++ compiler (g++ or clang++, e.g. `apt install g++`) or point $CXX at one",
        )
    include = Path(sysconfig.get_paths()["include"])
    if not (include / "Python.h").exists():
        version = f"{sys.version_info.major}.{sys.version_info.minor}"
        raise BuildProblem(
            f"the Python headers are missing (no Python.h in {include})",
            f"install the Python development headers (e.g. `apt install python{version}-dev`)",
        )
    if not any((Path(d) / "ATen" / "ATen.h").exists() for d in settings["includes"]):
        raise BuildProblem(
            f"torch {settings['version']} has no C++ headers (no ATen/ATen.h under {settings['includes']})",
            "install a torch wheel that ships its headers (the official ones do)",
        )


def _parallel_compile(compile_serial: Any, jobs: int) -> Any:
    """Wrap a ``CCompiler.compile`` so that each source is compiled by its own compiler process.

    setuptools compiles one extension's sources one after another; ours take seconds each (torch's
    headers are large), and the first import of an index install waits for them.
    """

    def compile_parallel(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        with ThreadPoolExecutor(max_workers=max(1, min(jobs, len(sources)))) as pool:
            per_source = pool.map(lambda source: compile_serial([source], *args, **kwargs), sources)
            return [obj for objects in per_source for obj in objects]

    return compile_parallel


def build_extension(source_dir: Path, build_dir: Path, settings: dict[str, Any]) -> Path:
    """Compile the accelerator from ``source_dir`` into ``build_dir``; return the shared object's path.

    ``settings`` is :func:`torch_settings`'s dictionary (plain data, so that a child process can be
    handed it as JSON). Compiler errors raise setuptools' exceptions; the compiler's output goes to
    this process's standard output and error.
    """
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    jobs = os.cpu_count() or 1

    class ParallelBuildExt(build_ext):
        def build_extension(self, ext: Any) -> None:
            self.compiler.compile = _parallel_compile(self.compiler.compile, jobs)
            super().build_extension(ext)

    isystem = [arg for inc in settings["includes"] for arg in ("-isystem", inc)]
    extension = Extension(
        EXTENSION,
        sources=[str(source_dir / s) for s in SOURCES],
        depends=[str(source_dir / h) for h in HEADERS],
        language="c++",
        define_macros=[
            ("LOOM_TORCH_VERSION", f'"{settings["version"]}"'),
            ("_GLIBCXX_USE_CXX11_ABI", str(settings["cxx11_abi"])),
        ],
        extra_compile_args=[*isystem, *EXTRA_COMPILE_ARGS, *(DEBUG_ARGS if settings["debug"] else OPTIMIZE_ARGS)],
        library_dirs=settings["libdirs"],
        libraries=LIBRARIES,
    )
    distribution = Distribution({"name": "loom-guards", "ext_modules": [extension]})
    command = ParallelBuildExt(distribution)
    command.build_lib = str(build_dir / "lib")
    command.build_temp = str(build_dir / "temp")
    command.ensure_finalized()
    command.run()
    (built,) = command.get_outputs()
    return Path(built)


# What the child process prints last: the built object, or why the build failed.
BUILT_PREFIX = "loom-guards-build: built "
FAILED_PREFIX = "loom-guards-build: failed: "


def _summary(exc: BaseException) -> str:
    """One line for a failed build: which command failed on what, rather than its whole command line."""
    called = next((e for e in (exc, exc.__cause__, exc.__context__) if isinstance(e, subprocess.CalledProcessError)), None)
    if called is not None and isinstance(called.cmd, list) and called.cmd:
        sources = [Path(arg).name for arg in called.cmd if str(arg).endswith(".cpp")]
        step = f"compiling {sources[0]}" if sources else "linking"
        return f"{called.cmd[0]} exited with status {called.returncode} {step}"
    return f"{type(exc).__name__}: {exc}"


def main(argv: list[str]) -> int:
    """The child-process entry point: ``_build.py SOURCE_DIR BUILD_DIR SETTINGS_JSON``."""
    source_dir, build_dir, settings = Path(argv[0]), Path(argv[1]), json.loads(argv[2])
    try:
        built = build_extension(source_dir, build_dir, settings)
    except Exception as exc:
        traceback.print_exc()
        sys.stderr.flush()
        print(f"{FAILED_PREFIX}{_summary(exc)}", flush=True)
        return 1
    print(f"{BUILT_PREFIX}{built}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
