"""Symbolic ints, floats and bools (dynamic shapes): graph values whose decisions become guards."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import fx

from .base import Variable

if TYPE_CHECKING:
    from ..translator import InstructionTranslator

_PYTHON_TYPES = {torch.SymInt: int, torch.SymFloat: float, torch.SymBool: bool}


class SymbolicVariable(Variable):
    """A SymInt/SymFloat/SymBool: an FX node computing it and the fake value carrying its expression.

    Using it where Python needs a concrete value (an index into a list, ``range``, a branch)
    specialises it: the ShapeEnv records the decision, which becomes a guard.
    """

    def __init__(self, node: fx.Node, example: Any) -> None:
        self.node = node
        self.example = example
        node.meta["val"] = example
        node.meta["example_value"] = example

    def python_type(self) -> type:
        return _PYTHON_TYPES[type(self.example)]

    def is_python_constant(self) -> bool:
        return False  # asking must not specialise

    def as_python_constant(self) -> Any:
        """Specialise: the trace now depends on the exact value (recorded as a guard)."""
        return self.python_type()(self.example)

    def as_graph_arg(self) -> Any:
        return self.node

    def as_example(self) -> Any:
        return self.example

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.example)

    def reconstruct(self, codegen) -> None:
        codegen.load_graph_output(self)

    def describe(self) -> str:
        return f"symbolic {self.python_type().__name__} {self.example}"

    def __repr__(self) -> str:
        return f"SymbolicVariable({self.node.name}, {self.example})"
