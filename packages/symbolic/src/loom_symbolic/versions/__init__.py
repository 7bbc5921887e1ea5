"""Opcode semantics that differ between CPython versions, one module per version.

``current`` is the module for the running interpreter. The translator models CPython 3.11 bytecode;
another version gets a clean "unsupported" result from :func:`loom_symbolic.translate` until its
module exists (a port is one new file here plus its entry in ``_MODULES``).
"""

from __future__ import annotations

import importlib
import sys

_MODULES = {(3, 11): "py311"}
SUPPORTED = tuple(_MODULES)


def is_supported() -> bool:
    """Whether the running CPython's bytecode can be translated."""
    return sys.version_info[:2] in _MODULES


class _Unsupported:
    """Stands in for a version module on an unsupported interpreter: registers nothing."""

    @staticmethod
    def register(handler) -> None:
        return None


current = importlib.import_module(f"{__name__}.{_MODULES[sys.version_info[:2]]}") if is_supported() else _Unsupported()
