"""Sets and frozensets while tracing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from loom_guards import Const, constant_by_value, guarded_by_identity, has_nan

from . import registry
from .base import Variable
from .constant import is_constant_value
from .container_tables import SET_METHODS, SET_MUTATORS, IdentityKey, Method, key_variable
from .mappings import DictVariable, MethodTableMixin

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class SetVariable(MethodTableMixin, Variable):
    """A set of constants (or of objects hashed by identity).

    ``values`` maps each member's key to its variable; ``layout`` is a real set of those keys that went
    through the same insertions and removals as the program's set, in the same order. A set's iteration
    order (and what ``pop()`` takes) depends on its history, not only on its members (a set that grew
    and shrank keeps its larger table), so both follow ``layout``, never a set rebuilt from the members.
    """

    mutable = True

    def __init__(self, items: list[Variable], source: Any = None, frozen: bool = False,
                 layout: set | None = None, tx: InstructionTranslator | None = None, cls: type | None = None,
                 cls_source: Any = None) -> None:
        self.values: dict[Any, Variable] = {}
        self.layout: set = set()
        for item in items:
            self.add(item, tx)
        if layout is not None:  # a fresh real set the trace computed with these members: its very table
            self.layout = layout
        self.source = source
        self.frozen = frozen
        #: a subclass of set made while tracing (``class Tracked(set)``), else None
        self.cls = cls
        self.cls_source = cls_source
        self.attrs: dict[str, Variable] = {}

    @classmethod
    def from_layout(cls, layout: set, *known: SetVariable, frozen: bool = False) -> SetVariable:
        """A new set whose members are the keys of ``layout`` (a real set the trace just computed, kept as
        the new set's layout), each with its variable from the first of ``known`` holding it."""
        made = cls([], frozen=frozen, layout=layout)
        for key in layout:  # the keys are known already: a tensor's is not asked for again
            holder = next((k for k in known if key in k.values), None)
            made.values[key] = holder.values[key] if holder is not None else key_variable(key)
        return made

    def python_type(self) -> type:
        if self.cls is not None:
            return self.cls
        return frozenset if self.frozen else set

    def table_method(self, name: str) -> Method | None:
        if self.frozen and name in SET_MUTATORS:
            return None
        return SET_METHODS.get(name)

    def as_python_constant(self) -> Any:
        if self.cls is not None or any(isinstance(k, IdentityKey) for k in self.layout):
            # a member only the trace holds, or a subclass whose methods a folded copy would not run
            return super().as_python_constant()
        return (frozenset if self.frozen else set)(self.layout)

    def members(self) -> list[Variable]:
        """Every member, in no particular order (to rebuild the set: Python orders the real one itself)."""
        return [self.values[k] for k in self.layout]

    def keys_in_order(self) -> list:
        """The members' keys in the order the program's set iterates them. A tensor's (or an object's) place
        in a real set follows its memory address, different on each run: the trace's order for such
        members is one eager could give too (the one fixed when the trace was made), as in torch.compile."""
        return list(self.layout)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return [self.values[k] for k in self.keys_in_order()]

    def truth(self, tx: InstructionTranslator) -> bool:
        return self.container_truth(tx, len(self.values))

    def add(self, item: Variable, tx: InstructionTranslator | None = None) -> None:
        """Add one member (a member equal to one already held leaves the set as it is, as in Python)."""
        key = DictVariable.key_of(item, tx)
        if key not in self.values:
            self.values[key] = item
            self.layout.add(key)

    def discard_key(self, key: Any) -> None:
        """Remove the member with key ``key`` if there is one."""
        if self.values.pop(key, None) is not None:
            self.layout.discard(key)

    def keep_only(self, kept: set) -> None:
        """Remove every member whose key is not in ``kept`` (in the layout's order, as CPython does)."""
        for key in [k for k in self.layout if k not in kept]:
            self.discard_key(key)

    def clear(self) -> None:
        """Remove every member (a cleared set starts from a fresh table)."""
        self.values.clear()
        self.layout = set()

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.frozen and self.is_python_constant():  # members are constants, so the frozenset is one too
            codegen.load_const(self.as_python_constant())
            return
        if self.cls is not None and self.frozen:  # frozenset.__new__(cls, members): no __init__ runs again
            codegen.load_callable(frozenset.__new__)
            codegen.load_const(self.cls)
            for item in self.members():
                codegen.reconstruct(item)
            codegen.emit("BUILD_SET", len(self.values))
            codegen.call(2)
            self.reconstruct_attributes(codegen)
            return
        if self.cls is not None:
            def fill(base: type) -> None:
                codegen.load_callable(base.update)
                codegen.emit("COPY", 3)
                for item in self.members():
                    codegen.reconstruct(item)
                codegen.emit("BUILD_SET", len(self.values))
                codegen.call(2)
                codegen.emit("POP_TOP")

            self.reconstruct_new_instance(codegen, fill)
            return
        if self.frozen:
            codegen.load_callable(frozenset)
            for item in self.members():
                codegen.reconstruct(item)
            codegen.emit("BUILD_SET", len(self.values))
            codegen.call(1)
            return
        for item in self.members():
            codegen.reconstruct(item)
        codegen.emit("BUILD_SET", len(self.values))


def identity_members_modelled(value: set | frozenset) -> bool:
    """Members a ``SetMembers`` guard checks: constants it compares by value holding no NaN (which NaN
    object a set holds decides ``in``, and the guard matches NaN with any NaN), and objects it compares
    by identity."""
    return all(guarded_by_identity(k) or (is_constant_value(k) and constant_by_value(k) and not has_nan(k))
               for k in value)


def wrap_identity_set(tx: InstructionTranslator | None, value: set | frozenset, source: Any,
                      order: list) -> SetVariable:
    """A set from the frame holding objects compared by identity (classes, functions, plain instances,
    builtin functions of modules) besides constants. Its members are the real objects, so
    ``in``, ``add`` and the set algebra hash and compare them as Python does (two equal builtin function
    objects are one member, as in eager); the set is guarded to hold these very objects
    (``SetMembers``), so another set, even one with equal members, recompiles rather than reuse answers
    the trace computed for these, and in this order. ``order`` is the one ``loom_guards.insertion_order``
    found (a set it finds none for is an object, never modelled in another order). A mutated set is written
    back after the graph, as any set is."""
    if tx is not None and source is not None:
        tx.output.guards.add("type", source, value)
        tx.output.guards.add("set_members", source, tuple(value))  # the members now (guards are built later)
    return SetVariable([_member(tx, v) for v in order], source, frozen=type(value) is frozenset)


def _member(tx: InstructionTranslator | None, value: Any) -> Variable:
    """A member of a set from the frame: an object is the trace's one variable for it (``Const`` source: the
    set is guarded to hold this very object), so a store made through another name is seen through the member
    and ``member is obj`` holds; its attributes read are guarded."""
    if tx is None or is_constant_value(value):
        return key_variable(value)
    return registry.wrap(tx, value, Const(value))
