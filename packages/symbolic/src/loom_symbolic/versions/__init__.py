"""Opcode semantics that differ between CPython versions, one module per version.

``current`` is the module for the running interpreter. The translator models CPython 3.11, 3.12 and
3.13 bytecode; another version gets a clean "unsupported" result from :func:`loom_symbolic.translate` until
its module exists (a port is one new file here plus its entry in ``_MODULES``).

Only facts about the bytecode live here; what an opcode *means* while translating is in the handler
modules of :mod:`loom_symbolic.opcodes` (``opcodes/py311.py``, ...). What a version module provides (``py311`` is the base; ``py312`` says only what 3.12 changes, and
``py313`` only what 3.13 changes over 3.12):

- ``DECODE_RULES``: opname → how the decoder turns that opcode's argument into its ``argval``
  where :mod:`dis`'s generic tables (``hasconst``, ``hasname``, ...) do not say it all;
- ``register_stack_effects(table, StackEffect)``: which instructions a graph may break at;
- ``before_native(ins)``: what the rewritten code runs right before an instruction run natively at
  a graph break (3.13: the TO_BOOL before a conditional jump);
- ``jump_landing(ins)``: what the rewritten code puts after a native jump's label, and where the
  jump continues in the original code;
- ``SUPERINSTRUCTIONS``: instructions a resume function's body writes as two;
- ``EMIT_REWRITES`` and the emit helpers (``call``, ``call_kw``, ``load_global_callable``,
  ``push_null_then``, ``make_function``): how :class:`~loom_symbolic.codegen.PyCodegen` writes instructions whose form
  changed;
- ``CLOSE_RETURNS_VALUE`` and ``CLASSMETHOD_WRAPS_DESCRIPTORS``: runtime facts (not bytecode) that differ:
  whether ``generator.close()`` returns the value the generator returned on GeneratorExit (3.13) or drops
  it; whether ``classmethod`` hands the class to a descriptor it wraps (3.11, 3.12: ``@classmethod @property``);
- ``MATCH_CLASS_NOT_A_TYPE``: the TypeError's message for a class pattern naming no class (3.11: "type");
- ``IMPORT_ERROR_KEYWORDS``: the keywords ``ImportError`` takes (3.12 adds ``name_from``).
"""

from __future__ import annotations

import importlib
import sys

_MODULES = {(3, 11): "py311", (3, 12): "py312", (3, 13): "py313"}
SUPPORTED = tuple(_MODULES)


def is_supported() -> bool:
    """Whether the running CPython's bytecode can be translated."""
    return sys.version_info[:2] in _MODULES


class _Unsupported:
    """Stands in for a version module on an unsupported interpreter: registers nothing."""

    DECODE_RULES: dict = {}
    EMIT_REWRITES: dict = {}
    CLOSE_RETURNS_VALUE = False
    CLASSMETHOD_WRAPS_DESCRIPTORS = False
    MATCH_CLASS_NOT_A_TYPE = "called match pattern must be a class"
    IMPORT_ERROR_KEYWORDS = frozenset({"name", "path"})

    @staticmethod
    def register_stack_effects(table, effect_class) -> None:
        return None


current = importlib.import_module(f"{__name__}.{_MODULES[sys.version_info[:2]]}") if is_supported() else _Unsupported()
