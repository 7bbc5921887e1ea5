"""Symbolic ints, floats and bools (dynamic shapes): graph values whose decisions become guards."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import torch
from torch import fx

from .. import shapes
from .base import Variable
from .constant import ConstantVariable
from .methods import MethodVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


_PYTHON_TYPES = {torch.SymInt: int, torch.SymFloat: float, torch.SymBool: bool}


def _bit_length(value: torch.SymInt) -> int:
    """``value.bit_length()``, guarded on the range of values with that bit length (2**(k-1) <= |value| <
    2**k) rather than on the value itself, as ``torch.SymInt.bit_length`` does: other sizes in the range
    reuse the graph."""
    shapes.raise_if_unknown(value, "needing the bit length of")
    hint = value.node.hint
    if hint is None:  # no value to start from (an unbacked size): the exact value is needed
        return int(value).bit_length()
    length = int(hint).bit_length()
    low, high = 1 << max(length - 1, 0), 1 << length
    if hint == 0:
        in_range = value == 0
    else:
        in_range = (value >= low) & (value < high) if hint > 0 else (value <= -low) & (value > -high)
    if not bool(in_range):  # evaluating the SymBool records the range as a guard
        raise AssertionError(f"a symbolic int outside the range of its own value {hint}")
    return length


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
        """Specialise: the trace now depends on the exact value (recorded as a guard); a value drawn
        from random cannot be guarded, so that breaks the graph."""
        shapes.raise_if_unknown(self.example, "needing the exact value of")
        return self.python_type()(self.example)

    def as_graph_arg(self) -> Any:
        return self.node

    def as_example(self) -> Any:
        return self.example

    def truth(self, tx: InstructionTranslator) -> bool:
        shapes.raise_if_unknown(self.example, "branching on")
        return bool(self.example)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "bit_length" and type(self.example) is torch.SymInt:
            return MethodVariable(self, name)
        if self._value_method(name):
            return MethodVariable(self, name)  # called on the value (below)
        return super().var_getattr(tx, name)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        if name == "bit_length" and type(self.example) is torch.SymInt and not args and not kwargs:
            return ConstantVariable(_bit_length(self.example))
        if self._value_method(name):
            # an int or float method the graph does not compute (bit_count, is_integer, hex): called on the exact
            # value, which a guard pins (a size, a float argument) or which breaks the graph (a value drawn from random)
            return ConstantVariable(self.as_python_constant()).call_method(tx, name, args, kwargs)
        return super().call_method(tx, name, args, kwargs)

    def _value_method(self, name: str) -> bool:
        """Whether ``name`` is a public method of an int (a SymInt's) or float (a SymFloat's)."""
        return type(self.example) in (torch.SymInt, torch.SymFloat) and not name.startswith("_") and callable(
            getattr(self.python_type(), name, None))

    def reconstruct(self, codegen) -> None:
        if self.node.op != "placeholder" and type(self.example) is torch.SymFloat and shapes.float_inputs_in(self.example):
            # AOTAutograd turns float inputs into 0-d tensors and cannot return a Python float computed
            # from one: the graph returns it as a float64 0-d tensor, -0.0 plus the value (exact, the
            # sign of a zero kept, and an op AOTAutograd rewrites), read back with .item().
            boxed = self.node.meta.get("loom_boxed")
            if boxed is None:
                graph = self.node.graph
                with graph.inserting_after(self.node):
                    zero = graph.call_function(torch.full, ((), -0.0), {"dtype": torch.float64})
                with graph.inserting_after(zero):
                    boxed = graph.call_function(operator.add, (zero, self.node))
                self.node.meta["loom_boxed"] = boxed
            codegen.load_graph_output_item(boxed)
            return
        codegen.load_graph_output(self)

    def describe(self) -> str:
        return f"symbolic {self.python_type().__name__} {self.example}"

    def __repr__(self) -> str:
        return f"SymbolicVariable({self.node.name}, {self.example})"
