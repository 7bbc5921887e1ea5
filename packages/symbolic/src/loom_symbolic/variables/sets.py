"""Sets and frozensets while tracing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from .base import Variable
from .container_tables import SET_METHODS, SET_MUTATORS, Method
from .mappings import DictVariable, MethodTableMixin

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class SetVariable(MethodTableMixin, Variable):
    """A set of constants."""

    mutable = True

    def __init__(self, items: list[Variable], source: Any = None, frozen: bool = False) -> None:
        self.values: dict[Any, Variable] = {}
        for item in items:
            self.values[DictVariable.key_of(item)] = item
        self.source = source
        self.frozen = frozen

    def python_type(self) -> type:
        return frozenset if self.frozen else set

    def table_method(self, name: str) -> Method | None:
        if self.frozen and name in SET_MUTATORS:
            return None
        return SET_METHODS.get(name)

    def as_python_constant(self) -> Any:
        return (frozenset if self.frozen else set)(self.values)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        # Iterate in the order the real set would: build it and follow its order.
        return [self.values[v] for v in self.as_python_constant()]

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.values)

    def add(self, item: Variable) -> None:
        """Add one member."""
        self.values[DictVariable.key_of(item)] = item

    def mutated(self, tx: InstructionTranslator) -> None:
        """Record that the program changed this set."""
        if self.source is not None:
            tx.output.side_effects.mutated_container(self)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.frozen:  # members are constants, so the frozenset is one too
            codegen.load_const(self.as_python_constant())
            return
        for item in self.values.values():
            codegen.reconstruct(item)
        codegen.emit("BUILD_SET", len(self.values))
