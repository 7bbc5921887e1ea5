"""``sys.exc_info()`` and ``sys.exception()`` read inside traced code: the exception being handled.

Which exception is being handled is the translator's own state (PUSH_EXC_INFO / POP_EXCEPT, through
inlined callers), so these reads are answered while tracing, as the program would see them. Outside
every handler of the trace the answer is the exception the compiled frame's caller handles. When the
caller handles none (the usual case) the answer is ``None`` with a guard that it is still none when the
frame runs (:class:`HandledAtEntry`); a frame called from an ``except`` block keeps the call a graph
break. The traceback of an exception raised while tracing is not known: its value is a stand-in that any
use turns into a graph break.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from loom_guards import Attr, Const
from loom_guards.sources import _Chained, _check_base, _set_chained

from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable
from .containers import TupleVariable
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


class UnknownTraceback(Variable):
    """The ``__traceback__`` of an exception raised while tracing: any use of it is unsupported."""

    def python_type(self) -> type:
        return types.TracebackType

    def describe(self) -> str:
        return "the traceback of an exception raised while tracing"


def _traceback(handled: Variable) -> Variable:
    if handled.source is not None:  # a real exception from the frame: its real traceback
        return _SourcedTraceback(Attr(handled.source, "__traceback__"))
    return UnknownTraceback()


class _SourcedTraceback(UnknownTraceback):
    """The traceback of an exception from the frame: rebuilt by reading it there, opaque while tracing."""

    def __init__(self, source) -> None:
        self.source = source


class HandledAtEntry(_Chained):
    """``sys.exception()`` read by the guard, before the frame runs: the exception its caller handles."""

    __slots__ = ()
    fetch_cost = 2

    def __init__(self, base) -> None:
        _set_chained(self, _check_base("HandledAtEntry", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value) -> object:
        return base_value.exc_info()[1]

    def __str__(self) -> str:
        return "the exception handled where the frame is called"


def none_handled_by_caller(tx: InstructionTranslator) -> bool:
    """Whether no exception is handled where the compiled frame was called, guarded so: the translator
    runs from the frame's call, so what it sees handled is the caller's (or, were the translator itself
    inside an ``except``, its own: then not None, and the read stays a graph break)."""
    if sys.exc_info()[1] is not None:
        return False
    tx.output.guards.add("constant", HandledAtEntry(Const(sys)), None)
    return True


@builtin(sys.exc_info)
def builtin_exc_info(tx: InstructionTranslator, args, kwargs):
    if args or kwargs:
        return None
    handled = tx.handled_exception()
    if handled is None:  # whatever the caller of the compiled frame handles
        if none_handled_by_caller(tx):
            return TupleVariable([ConstantVariable(None)] * 3)
        return None
    return TupleVariable([wrap_constant_like(handled.python_type()), handled, _traceback(handled)])


@builtin(sys.exception)
def builtin_exception(tx: InstructionTranslator, args, kwargs):
    if args or kwargs:
        return None
    handled = tx.handled_exception()
    if handled is None and none_handled_by_caller(tx):
        return ConstantVariable(None)
    return handled  # None: the caller's, only known when the frame runs
