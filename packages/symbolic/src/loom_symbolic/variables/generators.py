"""Generators made by traced code (generator functions and generator expressions), run lazily."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable
from .iterators import IteratorVariable

if TYPE_CHECKING:
    from ..translator import GeneratorTranslator, InstructionTranslator


class GeneratorVariable(IteratorVariable):
    """A generator object: each ``next`` resumes its translator up to the next ``yield``.

    Evaluation is lazy, item by item, as in Python, so side effects interleave with the consumer
    exactly as they would without loom; ``returned`` keeps the value of its ``return`` statement
    (what ``yield from`` evaluates to).
    """

    def __init__(self, translator: GeneratorTranslator, created_at: tuple[int, int] | None = None) -> None:
        self.translator = translator
        self.returned: Variable = ConstantVariable(None)
        self.finished = False
        #: Where the root frame made this generator: a graph break can move back there, so the
        #: generator is created (and later consumed) by ordinary Python.
        self.created_at = created_at

    def python_type(self) -> type:
        return types.GeneratorType

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.finished:
            return None
        item = self.translator.step()
        if item is None:
            self.finished = True
            self.returned = self.translator.return_value or ConstantVariable(None)
        return item

    def reconstruct(self, codegen) -> None:
        error = Unsupported("a generator escaping the compiled function", "a paused generator cannot be rebuilt")
        error.retry_at = self.created_at
        raise error

    def reconstruct_position(self, codegen) -> None:
        self.reconstruct(codegen)

    def describe(self) -> str:
        return f"generator {self.translator.code.co_qualname}"
