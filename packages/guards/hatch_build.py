"""Hatchling build hook that compiles loom-guards' optional C++ accelerator (``loom_guards._accel``).

The accelerator reads tensor metadata and torch's thread-local state straight from torch's C++ objects,
so it is compiled against the headers of the torch installed in the *build* environment and is only
loaded next to that exact torch version (``loom_guards`` checks ``_accel.TORCH_VERSION`` at import).
How it is compiled (sources, flags, setuptools' ``build_ext`` with the interpreter's own compiler
settings) lives in ``src/loom_guards/_build.py``, which this hook loads by path: the build at first
import uses the same file. The wheel is then tagged for the interpreter. For editable installs the
shared object is also copied into ``src/``.

Every non-editable wheel also carries the C++ sources (``loom_guards/_accel_src/``). Without torch in
the build environment (an isolated ``pip wheel``, as an index install builds), the wheel is pure
Python and ``import loom_guards`` builds the accelerator once against the torch it finds and caches it
(``loom_guards/_cache.py``). Control:

* ``LOOM_GUARDS_ACCEL=off``: never build the accelerator here;
* ``LOOM_GUARDS_ACCEL=required``: fail the build when it cannot be built here;
* unset / ``auto``: build it when torch is importable, otherwise (or on a compile error) say so and
  ship the package without it.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import sys
import tempfile
from pathlib import Path
from types import ModuleType
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

HERE = Path(__file__).parent
PACKAGE = "loom_guards"
CSRC = HERE / "csrc"
# Where a (non-editable) wheel carries the C++ sources, for the build at first import.
SHIPPED_SOURCES = f"{PACKAGE}/_accel_src"


def _recipe() -> ModuleType:
    """``src/loom_guards/_build.py``, loaded by path: the one copy of the compile settings, shared with
    the build at first import (importing the package itself would need torch and the accelerator)."""
    spec = importlib.util.spec_from_file_location("_loom_guards_build", HERE / "src" / PACKAGE / "_build.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


class CustomBuildHook(BuildHookInterface):
    """Compiles the accelerator when it can and adds it to wheels (and to ``src/`` for editable installs)."""

    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel":
            return
        recipe = _recipe()
        if version != "editable":
            # An installed wheel can then build the accelerator at first import, against the torch it
            # finds (an editable install builds from csrc/ itself).
            for name in [*recipe.SOURCES, *recipe.HEADERS]:
                build_data["force_include"][str(CSRC / name)] = f"{SHIPPED_SOURCES}/{name}"
        mode = os.environ.get("LOOM_GUARDS_ACCEL", "auto").lower()
        if mode == "off":
            print("loom-guards: LOOM_GUARDS_ACCEL=off, building the package without the C++ accelerator")
            return
        try:
            import torch
        except ImportError:
            if mode == "required":
                raise RuntimeError("loom-guards: LOOM_GUARDS_ACCEL=required but torch is not importable") from None
            print(
                "loom-guards: torch is not importable in the build environment; the wheel carries the C++ "
                "sources instead, and the accelerator is built at first import (build without isolation "
                "to build it now)",
                file=sys.stderr,
            )
            return
        self._tmp = tempfile.mkdtemp(prefix="loom-guards-build-")
        try:
            built = recipe.build_extension(CSRC, Path(self._tmp), recipe.torch_settings())
        except Exception as exc:
            if mode == "required":
                raise
            print(f"loom-guards: WARNING: the C++ accelerator failed to build ({exc}); the package will "
                  "try again at first import, and use its pure-Python back end if that fails too", file=sys.stderr)
            return
        relative = f"{PACKAGE}/{built.name}"
        build_data["pure_python"] = False
        build_data["infer_tag"] = True
        build_data["force_include"][str(built)] = relative
        if version == "editable":
            # Copy, then rename over the old one: processes that have it loaded keep their (old) file
            # instead of seeing it rewritten under them.
            installed = HERE / "src" / relative
            partial = installed.with_name(f"{installed.name}.{os.getpid()}.tmp")
            shutil.copy2(built, partial)
            os.replace(partial, installed)
        print(f"loom-guards: built {built.name} for {sys.implementation.cache_tag} against torch {torch.__version__}")

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        if self.target_name == "wheel":
            shutil.rmtree(getattr(self, "_tmp", ""), ignore_errors=True)
