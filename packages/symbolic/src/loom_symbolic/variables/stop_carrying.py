"""Iterators whose step runs Python code (a user ``__next__``, ``map``'s function, ``filter``'s predicate):
a StopIteration that code raises ends the step, as it does in C, where ``tp_iternext`` returning NULL with
StopIteration set is exhaustion to every consumer (``list``, ``for``, ``zip``, ``yield from``). ``next()``
then re-raises that very StopIteration, and ``yield from`` evaluates to its value (PEP 380)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..errors import UserError
from . import exception_values as _exceptions
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class StopCarrying:
    """Mixin: :meth:`step_or_stop` runs one step, keeping a StopIteration it raises in :attr:`stopped`."""

    #: the StopIteration the last step raised (None while items come, or after a plain exhaustion)
    stopped: _exceptions.ExceptionVariable | None = None
    #: the inner iterator whose end ended the last step: C leaves its StopIteration (a user iterator's, a
    #: generator's return value) set, so ``next()`` and ``yield from`` see it through this one
    ended_by: Variable | None = None

    def step_or_stop(self, step: Callable[[], Variable | None]) -> Variable | None:
        """``step()``'s item; None when it raised StopIteration (kept for ``next()``) or ran out."""
        self.stopped = self.ended_by = None
        try:
            return step()
        except _exceptions.SymbolicException as raised:
            if issubclass(raised.exc.cls, StopIteration):
                self.stopped = raised.exc
                return None
            raise

    @property
    def returned_now(self) -> bool:
        """Whether the last step stopped with a StopIteration (``yield from`` then reads :attr:`returned`)."""
        return self.stopped is not None or bool(getattr(self.ended_by, "returned_now", False))

    @property
    def returned(self) -> Variable:
        """``StopIteration.value`` of the last stop: its ``value`` attribute, else its first argument."""
        stop = self.stopped
        if stop is None:
            return self.ended_by.returned if self.returned_now else ConstantVariable(None)
        return _exceptions.stop_iteration_value(stop, self.describe())

    def stop_iteration(self, tx: InstructionTranslator) -> Exception:
        """``next()`` re-raises the very StopIteration the step raised; a bare one after a plain exhaustion."""
        if self.stopped is None:
            inner = getattr(self.ended_by, "stop_iteration", None)
            if self.returned_now and inner is not None:
                return inner(tx)
            return UserError("next()", "StopIteration", exc_type=StopIteration, exc_args=())
        return _exceptions.SymbolicException(self.stopped)
