"""``globals()`` in traced code: the running code's globals dict, for reads by name.

``"name" in globals()``, ``globals()["name"]`` and ``globals().get("name"[, default])`` are answered as a
global name read is (:meth:`~loom_symbolic.translator.InstructionTranslator.load_global`), without its
builtins fallback: the trace's own ``global`` stores and deletions first (the side effects' overlay), then
the real dict, guarded the same way (the value read, or the name's absence, or its presence). Stores and
deletions by a constant name are those of the globals themselves (:mod:`.module_globals`). Anything else
(iteration, ``len``, another method, the dict passed to a call) is a graph break naming it; left alive across a break, the dict is ``globals()`` called again in
the rewritten frame, which runs with the same globals.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const

from ..errors import Unsupported, UserError
from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable
from .module_globals import delete_module_global, module_of, store_module_global
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

_ABSENT = object()


class GlobalsDictVariable(Variable):
    """The dict ``globals()`` returned in the code ``tx`` runs (or, with ``module_source``, a module's
    ``__dict__`` read as its attribute after the trace changed its globals); reads by a constant name only."""

    def __init__(self, tx: InstructionTranslator, module: Any = None, module_source: Any = None) -> None:
        self.f_globals = tx.f_globals if module is None else module.__dict__
        self.in_root = self.f_globals is tx.root().f_globals  # the rewritten frame's own globals
        #: how the module is reached from the frame, for ``module.__dict__``: its members' sources hang off it
        self.module_source = module_source
        self.module_name = getattr(module, "__name__", None)

    def python_type(self) -> type:
        return dict

    def describe(self) -> str:
        return "the dict globals() returned" if self.module_source is None else f"the __dict__ of module {self.module_name}"

    def _name(self, key: Variable) -> str:
        name = key.as_python_constant() if key.is_python_constant() else None
        if type(name) is not str:
            raise Unsupported(f"a read of {self.describe()} by {key.describe()}", "only a constant name is modelled")
        return name

    def _lookup(self, tx: InstructionTranslator, name: str, *, value: bool) -> Any:
        """The global ``name`` (a variable; ``True`` for a presence test when ``value`` is false) or
        :data:`_ABSENT`, guarded as a global read is."""
        effects = tx.output.side_effects
        if self.in_root:
            overlay = effects.global_overlay.get(name)
        else:
            overlay = effects.stored_module_global(self.f_globals, name) if effects.global_modules else None
        if overlay is not None:  # the trace's own store (a variable), or its deletion (the DELETED mark)
            return overlay if isinstance(overlay, Variable) else _ABSENT
        if self.module_source is None and tx.f_globals is not self.f_globals:
            raise Unsupported(f"a read of {self.describe()} in another module's code", "not modelled")  # its sources differ
        fixed = self.module_source is None and tx.globals_are_fixed()
        label = "G" if self.in_root else None
        if name not in self.f_globals:
            if not fixed:
                tx.output.guards.add("absent_key", Const(self.f_globals, label), name)
            return _ABSENT
        if value:
            source = tx.globals_source(name) if self.module_source is None else Attr(self.module_source, name)
            return wrap(tx, self.f_globals[name], source)
        if not fixed:
            tx.output.guards.add("present_key", Const(self.f_globals, label), name)
        return True

    def contains(self, tx: InstructionTranslator, item: Variable) -> Variable:
        """``name in globals()``."""
        return ConstantVariable(self._lookup(tx, self._name(item), value=False) is not _ABSENT)

    def getitem(self, tx: InstructionTranslator, key: Variable) -> Variable:
        """``globals()[name]``: a KeyError when it is missing."""
        name = self._name(key)
        found = self._lookup(tx, name, value=True)
        if found is _ABSENT:
            raise UserError(f"globals()[{name!r}]", repr(name), exc_type=KeyError)
        return found

    def setitem(self, tx: InstructionTranslator, key: Variable, value: Variable) -> None:
        """``globals()[name] = value``: a store among the globals, as ``global name; name = value`` is."""
        name = self._name(key)
        if self.in_root:
            tx.output.side_effects.store_global(name, value)
        else:
            store_module_global(tx, module_of(self.f_globals), name, value)

    def delitem(self, tx: InstructionTranslator, key: Variable) -> None:
        """``del globals()[name]``: a deletion among the globals (a KeyError where the name is missing)."""
        name = self._name(key)
        if self._lookup(tx, name, value=False) is _ABSENT:
            raise UserError(f"del globals()[{name!r}]", repr(name), exc_type=KeyError, exc_args=(name,))
        if self.in_root:
            tx.output.side_effects.delete_global(name)
        else:
            delete_module_global(tx, module_of(self.f_globals), name)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "get":
            return _GlobalsGet(self)
        raise Unsupported(f"attribute {name!r} of {self.describe()}", "only reads by name are modelled")

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.module_source is not None:
            codegen.load_source(self.module_source)
            codegen.emit("LOAD_ATTR", "__dict__")
            return
        if not self.in_root:
            raise Unsupported(f"rebuilding {self.describe()} of another module", "not modelled")
        codegen.call_const(globals, 0, lambda: None)  # called in the rewritten frame: the same globals


class _GlobalsGet(Variable):
    """``globals().get``, bound."""

    def __init__(self, owner: GlobalsDictVariable) -> None:
        self.owner = owner

    def describe(self) -> str:
        return "globals().get"

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if kwargs or not 1 <= len(args) <= 2:
            raise Unsupported("globals().get with these arguments", "not modelled")
        found = self.owner._lookup(tx, self.owner._name(args[0]), value=True)
        if found is _ABSENT:
            return args[1] if len(args) == 2 else ConstantVariable(None)
        return found


@builtin(globals)
def builtin_globals(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``globals()``: the running code's globals, for reads by name (:class:`GlobalsDictVariable`)."""
    if args or kwargs:
        raise Unsupported("call to globals() with arguments", "globals() takes none")
    return GlobalsDictVariable(tx)
