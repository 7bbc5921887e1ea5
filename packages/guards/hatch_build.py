"""Hatchling build hook that compiles loom-guards' optional C++ accelerator (``loom_guards._accel``).

The accelerator reads tensor metadata and torch's thread-local state straight from torch's C++ objects,
so it is compiled against the headers of the torch installed in the *build* environment and is only
loaded next to that exact torch version (``loom_guards`` checks ``_accel.TORCH_VERSION`` at import and
falls back to its pure-Python back end otherwise). Like loom-framehook's hook, it drives setuptools'
``build_ext`` so the interpreter's own compiler settings are used; the wheel is then tagged for the
interpreter. For editable installs the shared object is also copied into ``src/``.

Without torch in the build environment (an isolated ``pip wheel``), the wheel is pure Python. Control:

* ``LOOM_GUARDS_ACCEL=off``: never build the accelerator;
* ``LOOM_GUARDS_ACCEL=required``: fail the build when it cannot be built;
* unset / ``auto``: build it when torch is importable, otherwise (or on a compile error) warn and ship
  the pure-Python package.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).parent
PACKAGE = "loom_guards"
EXTENSION = f"{PACKAGE}._accel"
# The translation units of the accelerator (csrc/accel.h says which does what); the headers are listed
# as dependencies so that setuptools rebuilds when one changes.
SOURCES = [
    "csrc/module.cpp",
    "csrc/program.cpp",
    "csrc/lower.cpp",
    "csrc/run.cpp",
    "csrc/fetch.cpp",
    "csrc/values.cpp",
    "csrc/state.cpp",
]
HEADERS = ["csrc/accel.h", "csrc/tensor.h", "csrc/state.h"]
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


def _torch_settings() -> dict[str, Any]:
    import torch
    from torch.utils import cpp_extension

    return {
        "version": torch.__version__,
        "includes": cpp_extension.include_paths(),
        "libdirs": cpp_extension.library_paths(),
        "cxx11_abi": int(bool(torch._C._GLIBCXX_USE_CXX11_ABI)),
    }


def build_extension(build_dir: Path) -> Path:
    """Compile the accelerator into ``build_dir`` and return the path of the shared object."""
    from setuptools import Distribution, Extension
    from setuptools.command.build_ext import build_ext

    torch_cfg = _torch_settings()
    debug = os.environ.get("LOOM_GUARDS_DEBUG") == "1"
    isystem = [arg for inc in torch_cfg["includes"] for arg in ("-isystem", inc)]
    extension = Extension(
        EXTENSION,
        sources=[str(HERE / s) for s in SOURCES],
        depends=[str(HERE / h) for h in HEADERS],
        language="c++",
        define_macros=[
            ("LOOM_TORCH_VERSION", f'"{torch_cfg["version"]}"'),
            ("_GLIBCXX_USE_CXX11_ABI", str(torch_cfg["cxx11_abi"])),
        ],
        # -g0: the interpreter's CFLAGS carry -g, and torch's headers make that debug info large
        extra_compile_args=[*isystem, *EXTRA_COMPILE_ARGS, *(["-O0", "-g"] if debug else ["-O2", "-g0"])],
        library_dirs=torch_cfg["libdirs"],
        # torch's libraries are already loaded (by `import torch`, which loom_guards does first) when the
        # accelerator is imported: the dynamic loader matches them by soname, no rpath needed.
        libraries=["c10", "torch_cpu", "torch_python"],
    )
    distribution = Distribution({"name": "loom-guards", "ext_modules": [extension]})
    command = build_ext(distribution)
    command.build_lib = str(build_dir / "lib")
    command.build_temp = str(build_dir / "temp")
    command.ensure_finalized()
    command.run()
    (built,) = command.get_outputs()
    return Path(built)


class CustomBuildHook(BuildHookInterface):
    """Compiles the accelerator when it can and adds it to wheels (and to ``src/`` for editable installs)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        mode = os.environ.get("LOOM_GUARDS_ACCEL", "auto").lower()
        if mode == "off":
            print("loom-guards: LOOM_GUARDS_ACCEL=off, building the pure-Python package")
            return
        try:
            import torch
        except ImportError:
            if mode == "required":
                raise RuntimeError("loom-guards: LOOM_GUARDS_ACCEL=required but torch is not importable") from None
            print(
                "loom-guards: torch is not importable in the build environment; building the pure-Python "
                "package (build without isolation to get the C++ accelerator)",
                file=sys.stderr,
            )
            return
        self._tmp = tempfile.mkdtemp(prefix="loom-guards-build-")
        try:
            built = build_extension(Path(self._tmp))
        except Exception as exc:
            if mode == "required":
                raise
            print(f"loom-guards: WARNING: the C++ accelerator failed to build ({exc}); "
                  "the package will use its pure-Python back end", file=sys.stderr)
            return
        relative = f"{PACKAGE}/{built.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(built)] = relative
        if version == "editable":
            shutil.copy2(built, HERE / "src" / relative)
        print(f"loom-guards: built {built.name} for {sys.implementation.cache_tag} against torch {torch.__version__}")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self.target_name == "wheel":
            shutil.rmtree(getattr(self, "_tmp", ""), ignore_errors=True)
