"""``sys.exc_info()`` and ``sys.exception()`` read inside traced code: the exception being handled.

Which exception is being handled is the translator's own state (PUSH_EXC_INFO / POP_EXCEPT, through
inlined callers), so these reads are answered while tracing, as the program would see them. Outside
every handler of the trace the answer is the exception the compiled frame's caller handles, known only
when the frame runs: the call stays a graph break. The traceback of an exception raised while tracing is not known: its value is a stand-in that any use
turns into a graph break.
"""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING

from loom_guards import Attr

from .base import Variable
from .builtins import builtin
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


@builtin(sys.exc_info)
def builtin_exc_info(tx: InstructionTranslator, args, kwargs):
    if args or kwargs:
        return None
    handled = tx.handled_exception()
    if handled is None:
        return None  # whatever the caller of the compiled frame handles: only known when it runs
    return TupleVariable([wrap_constant_like(handled.python_type()), handled, _traceback(handled)])


@builtin(sys.exception)
def builtin_exception(tx: InstructionTranslator, args, kwargs):
    if args or kwargs:
        return None
    return tx.handled_exception()  # None: the caller's, only known when the frame runs
