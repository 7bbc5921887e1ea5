"""Every opcode handler, registered once: the shared families, then the running CPython's changes.

The translator reads :data:`HANDLERS` (opname → ``handler(tx, ins)``), which this import fills.
"""

from __future__ import annotations

import importlib

from ..versions import current, is_supported
from . import build, calls, control, exception_opcodes, matching, names, operator_opcodes, stack  # noqa: F401  (they register)
from .registry import HANDLERS

__all__ = ["HANDLERS"]

importlib.import_module(f"{__package__}.class_definitions")  # registers LOAD_BUILD_CLASS and __build_class__

if is_supported():  # py311, py312 or py313 of this package, named like the bytecode facts' module
    importlib.import_module(f"{__package__}.{current.__name__.rpartition('.')[2]}")
