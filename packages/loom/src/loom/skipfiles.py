"""Which frames loom never compiles: library internals are skipped cheaply.

The decision is made once per code object (the frame hook then remembers it as SKIP on the code),
so it may take a few string operations. Skipped: the standard library, torch, loom's own packages,
triton, numpy and a few tools that run tests. Other installed packages (``transformers``, say) are
user code as far as loom is concerned: their models are what users compile.
"""

from __future__ import annotations

import importlib.util
import os
import site
import sys
import sysconfig
import types

import torch

_LIBRARIES = (
    "torch", "loom_framehook", "loom_guards", "loom_symbolic", "loom_backends", "loom", "triton", "numpy",
    "bytecode", "sympy", "_pytest", "pytest", "pluggy", "typing_extensions",
)


def _slash(paths: set[str]) -> tuple[str, ...]:
    """Prefixes to match filenames against: folders end with a separator, files are kept as they are."""
    return tuple(sorted(p if p.endswith(".py") else p.rstrip(os.sep) + os.sep for p in paths if p))


def _library_directories() -> tuple[str, ...]:
    dirs = {os.path.dirname(torch.__file__)}
    for module_name in _LIBRARIES:
        dirs.update(_package_dirs(module_name))
    return _slash(dirs)


def _stdlib_directories() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    return _slash({paths["stdlib"], paths["platstdlib"]})


def _site_directories() -> tuple[str, ...]:
    # Third-party packages are user code unless listed above; without a venv they live *inside* the
    # standard library's folder (lib/python3.11/site-packages), so they are told apart first.
    paths = sysconfig.get_paths()
    return _slash({paths["purelib"], paths["platlib"], *site.getsitepackages(), site.getusersitepackages()})


def _package_dirs(name: str) -> list[str]:
    """Where a top-level package lives (its folder, or the file of a one-file module), found without
    importing it (triton is imported lazily)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return []
    if spec is None:
        return []
    if spec.submodule_search_locations:
        return list(spec.submodule_search_locations)
    return [spec.origin] if spec.origin and os.path.isabs(spec.origin) else []


_LIBRARY_DIRECTORIES = _library_directories()
_STDLIB_DIRECTORIES = _stdlib_directories()
_SITE_DIRECTORIES = _site_directories()
#: Folders inside skipped ones that hold user-level code loom must compile (its examples).
_USER_DIRECTORIES = (os.path.join(os.path.dirname(__file__), "examples") + os.sep,)


def refresh() -> None:
    """Recompute the skipped directories (after installing or importing a library that should be skipped)."""
    global _LIBRARY_DIRECTORIES
    _LIBRARY_DIRECTORIES = _library_directories()


def is_library_code(code: types.CodeType, f_globals: dict | None = None) -> bool:
    """Whether ``code`` belongs to the standard library, torch, loom itself or another skipped library.

    ``f_globals`` (the frame's globals, when known) decides for code made by ``exec``: ``python -c``
    scripts and code exec'd in a user module are the user's; helpers libraries generate this way
    (namedtuple's ``__new__``, FX's ``<eval_with_key>``) are not.
    """
    filename = code.co_filename
    if filename.startswith("<"):
        if filename.startswith("<ipython"):
            return False  # notebook cells
        if filename != "<string>" or f_globals is None:
            return True
        module_name = f_globals.get("__name__")
        if module_name == "__main__":
            return False
        module_file = getattr(sys.modules.get(module_name), "__file__", None)
        return module_file is None or is_library_file(module_file)
    return is_library_file(filename)


def is_library_file(filename: str) -> bool:
    """Whether a source file belongs to the standard library or a skipped library."""
    if filename.startswith(_USER_DIRECTORIES):
        return False
    if filename.startswith(_LIBRARY_DIRECTORIES):
        return True
    if filename.startswith(_SITE_DIRECTORIES):
        return False
    return filename.startswith(_STDLIB_DIRECTORIES)
