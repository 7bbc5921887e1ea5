"""Generators made by traced code (generator functions and generator expressions), run lazily."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from ..errors import Unsupported, UserError
from .base import Variable
from .constant import ConstantVariable
from .exception_values import SymbolicException, make_exception
from .iterators import IteratorVariable
from .methods import MethodVariable

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
        self.started = False
        self.returned: Variable = ConstantVariable(None)
        self.finished = False
        #: Where the root frame made this generator: a graph break can move back there, so the
        #: generator is created (and later consumed) by ordinary Python.
        self.created_at = created_at

    def python_type(self) -> type:
        return types.GeneratorType

    def next_item(self, tx: InstructionTranslator, sent: Variable | None = None) -> Variable | None:
        if self.finished:
            return None
        try:
            item = self.translator.step(sent, tx)
        except SymbolicException:
            self.finished = True  # a generator an exception escaped from is closed: next() stops it
            raise
        self.started = True
        if item is None:
            self.finished = True
            self.returned = self.translator.return_value or ConstantVariable(None)
        return item

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _METHODS:
            return MethodVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        method = _METHODS.get(name)
        if method is None or kwargs:
            return super().call_method(tx, name, args, kwargs)
        return method(self, tx, *args)

    def send(self, tx: InstructionTranslator, value: Variable) -> Variable:
        """``gen.send(value)``: resume with ``value`` as the paused ``yield``'s value."""
        sends_none = value.is_python_constant() and value.as_python_constant() is None
        if not self.started and not self.finished and not sends_none:
            raise UserError("generator.send()", "can't send non-None value to a just-started generator",
                            exc_type=TypeError)
        item = self.next_item(tx, None if sends_none else value)
        if item is None:
            raise UserError("generator.send()", "StopIteration: the generator finished", exc_type=StopIteration)
        return item

    def close(self, tx: InstructionTranslator) -> Variable:
        """``gen.close()``: GeneratorExit raised at the paused ``yield``. Outside any ``try`` block of the
        generator that just ends it; inside one, its ``finally`` or handler runs in the trace: the
        GeneratorExit (or a StopIteration) leaving it, or a return, closes the generator; another
        exception propagates to the caller; a ``yield`` instead is CPython's RuntimeError."""
        if self.started and not self.finished and _handles_exceptions_at_pause(self.translator):
            exit_exc = make_exception(GeneratorExit, [], {}, tx)
            try:
                item = self.translator.step(None, tx, thrown=exit_exc)
            except SymbolicException as escaped:
                self.finished = True
                if issubclass(escaped.exc.cls, GeneratorExit):
                    return ConstantVariable(None)
                raise
            if item is not None:
                raise UserError("generator.close()", "generator ignored GeneratorExit", exc_type=RuntimeError)
            self.finished = True
            returned = self.translator.return_value
            if returned is not None and not (returned.is_python_constant() and returned.as_python_constant() is None):
                # 3.13 hands the value back from close(), earlier versions drop it: not modelled
                raise Unsupported(f"closing {self.describe()}", "its finally block returns a value")
            return ConstantVariable(None)
        self.finished = True
        return ConstantVariable(None)

    def reconstruct(self, codegen) -> None:
        error = Unsupported("a generator escaping the compiled function", "a paused generator cannot be rebuilt")
        error.retry_at = self.created_at
        raise error

    def reconstruct_position(self, codegen) -> None:
        self.reconstruct(codegen)

    def describe(self) -> str:
        return f"generator {self.translator.code.co_qualname}"


def _handles_exceptions_at_pause(translator: GeneratorTranslator) -> bool:
    """Whether an exception at the generator's paused ``yield`` reaches a handler of its own code
    (3.12's handler turning StopIteration into RuntimeError, which covers every generator, aside)."""
    current = translator.current
    entry = translator.decoded.handler_for(current.index) if current is not None else None
    return entry is not None and translator.instructions[entry.target].opname != "CALL_INTRINSIC_1"


_METHODS = {
    "send": lambda gen, tx, *args: gen.send(tx, *args),
    "close": lambda gen, tx, *args: gen.close(tx, *args),
}
