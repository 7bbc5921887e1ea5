"""Stores and deletions of a module's globals, however the program reaches them.

A module's globals are one dict that three roads lead to: ``STORE_GLOBAL``/``DELETE_GLOBAL`` in code whose
globals they are, ``module.name = value`` / ``del module.name`` on the module object, and ``LOAD_GLOBAL`` or
an attribute read. Every road here records the change once and makes every later read in the trace see it:

- the rewritten frame's own module: the ``global`` store/deletion the side effects record for it (replayed
  as ``STORE_GLOBAL``/``DELETE_GLOBAL``; ``load_global`` reads their overlay);
- another module (an inlined function's, or one the program named): an attribute store/deletion on the
  module object (replayed as ``STORE_ATTR``/``DELETE_ATTR``), which the module's attribute reads and its
  functions' ``LOAD_GLOBAL`` both consult (``SideEffects.stored_module_global``).

A library whose globals the translator reads unguarded (torch, the standard library: ``parametrize.cached()``
counting its users) may be stored into: the first store guards the value the global starts with, since the trace
computed from it. A deletion there is a graph break, as is any change to globals that are no module's dict
(code made by ``exec``).
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const

from ..errors import Unsupported, UserError
from ..policy import trusted_module_name
from .base import Variable
from .constant import ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def module_of(f_globals: dict[str, Any]) -> types.ModuleType | None:
    """The imported module whose ``__dict__`` is ``f_globals``, or None (globals made for ``exec``)."""
    module = sys.modules.get(f_globals.get("__name__", ""))
    return module if module is not None and module.__dict__ is f_globals else None


def is_root_module(tx: InstructionTranslator, module: types.ModuleType) -> bool:
    """Whether ``module``'s globals are the rewritten frame's own (stored with ``global`` statements)."""
    return module.__dict__ is tx.root().f_globals


def _writable(module: types.ModuleType | None, what: str) -> types.ModuleType:
    if module is None:
        raise Unsupported(what, "the code's globals are not a module's dict (code run by exec)",
                          hint="it runs as ordinary Python")
    if trusted_module_name(module.__name__):
        raise Unsupported(what, f"{module.__name__} is a library whose globals are read as fixed",
                          hint="it runs as ordinary Python")
    return module


def store_module_global(tx: InstructionTranslator, module: types.ModuleType | None, name: str, value: Variable,
                        target: Variable | None = None) -> None:
    """``name = value`` in ``module``'s globals (``target``: the module's variable, when the program named it)."""
    effects = tx.output.side_effects
    if module is not None and is_root_module(tx, module):
        effects.store_global(name, value)
        return
    if module is not None and trusted_module_name(module.__name__):
        _guard_starting_value(tx, module, name)
    else:
        module = _writable(module, f"assigning global {name!r} of another module")
    effects.store_module_global(target if target is not None else wrap(tx, module, None), module, name, value)


def _guard_starting_value(tx: InstructionTranslator, module: types.ModuleType, name: str) -> None:
    """Before the trace first stores global ``name`` of a library whose globals it reads unguarded: the entry
    holds only while the global starts as the trace found it (else the replay would write over another value)."""
    if name not in module.__dict__ or name in tx.output.side_effects.attr_overlay.get(id(module), {}):
        return
    current = module.__dict__[name]
    kind = "constant" if isinstance(current, (int, float, str, bytes, type(None))) else "identity"
    tx.output.guards.add(kind, Attr(Const(module), name), current)


def delete_module_global(tx: InstructionTranslator, module: types.ModuleType | None, name: str,
                         target: Variable | None = None) -> None:
    """``del name`` in ``module``'s globals (``require_global`` checked that it is there)."""
    effects = tx.output.side_effects
    if module is not None and is_root_module(tx, module):
        effects.delete_global(name)
        return
    module = _writable(module, f"deleting global {name!r} of another module")
    effects.delete_module_global(target if target is not None else wrap(tx, module, None), module, name)


def missing_name(name: str) -> UserError:
    """The NameError CPython raises for an undefined global ``name``: its message and ``name`` are known."""
    message = f"name {name!r} is not defined"
    return UserError(f"global {name!r}", message, exc_type=NameError, exc_args=(message,),
                     exc_attrs={"name": ConstantVariable(name)})


def require_global(tx: InstructionTranslator, name: str) -> None:
    """``del name`` (``global name``) in the code ``tx`` runs needs ``name`` among its globals, stored or
    deleted by the trace or there already (a builtin does not count): else the NameError Python raises.
    The answer is guarded as the dict's membership."""
    effects = tx.output.side_effects
    in_root = tx.f_globals is tx.root().f_globals
    if in_root:
        overlay = effects.global_overlay.get(name)
    else:
        overlay = effects.stored_module_global(tx.f_globals, name) if effects.global_modules else None
    if overlay is not None:
        if not isinstance(overlay, Variable):  # the trace's deletion
            raise missing_name(name)
        return
    if name not in tx.f_globals:
        tx.guard_absent(tx.f_globals, name)
        raise missing_name(name)
    if not tx.globals_are_fixed():
        tx.output.guards.add("present_key", Const(tx.f_globals, "G" if in_root else None), name)
