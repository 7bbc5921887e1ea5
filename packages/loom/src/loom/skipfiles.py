"""Which frames loom never compiles: library internals are skipped cheaply.

The decision is made once per code object (the frame hook then remembers it in the code's own
cache), so it may take a few string operations.
"""

from __future__ import annotations

import os
import sysconfig
import types

import torch


def _directories() -> tuple[str, ...]:
    paths = sysconfig.get_paths()
    dirs = {paths["stdlib"], paths["platstdlib"]}
    for module_name in ("torch", "loom_framehook", "loom_guards", "loom_symbolic", "loom_backends", "loom", "triton",
                        "numpy", "bytecode", "sympy", "_pytest", "pytest", "pluggy", "typing_extensions"):
        module = __import__("sys").modules.get(module_name)
        file = getattr(module, "__file__", None)
        if file:
            dirs.add(os.path.dirname(file))
    dirs.add(os.path.dirname(torch.__file__))
    return tuple(sorted(d.rstrip(os.sep) + os.sep for d in dirs if d))


_SKIP_DIRECTORIES = _directories()
#: Folders inside skipped ones that hold user-level code loom must compile (its examples).
_USER_DIRECTORIES = (os.path.join(os.path.dirname(__file__), "examples") + os.sep,)


def refresh() -> None:
    """Recompute the skipped directories (after importing a library that should be skipped)."""
    global _SKIP_DIRECTORIES
    _SKIP_DIRECTORIES = _directories()
#: Folders inside skipped ones that hold user-level code loom must compile (its examples).
_USER_DIRECTORIES = (os.path.join(os.path.dirname(__file__), "examples") + os.sep,)


def is_library_code(code: types.CodeType) -> bool:
    """Whether ``code`` belongs to the standard library, torch, loom itself or another skipped library."""
    filename = code.co_filename
    if filename.startswith("<") and filename != "<string>" and not filename.startswith("<ipython"):
        return True  # frozen modules, <module> stubs and the like
    return filename.startswith(_SKIP_DIRECTORIES) and not filename.startswith(_USER_DIRECTORIES)
