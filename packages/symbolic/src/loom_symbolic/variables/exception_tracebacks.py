"""``__traceback__`` and ``with_traceback`` of an exception made while tracing.

CPython gives an exception a new traceback object each time it is raised (and each frame it passes
adds one); ``with_traceback(tb)`` and ``exc.__traceback__ = tb`` set it. The translator never sees the
frames a real traceback would list, so a traceback is an opaque :class:`TracebackVariable`: known to be
a traceback (not None, true), the same object only as the very variable read. One the trace raised cannot
leave it (a helper raising the exception again would list the helper's frame and line): rebuilding it
breaks where the exception was raised, and the raise runs as ordinary Python. One read from the frame is
rebuilt as its exception's ``__traceback__`` while that exception still holds it.

Each traceback also knows the frames it lists when the trace saw them all (``entries``: the code and line of
each, the catching frame first): every frame an exception is raised in or passes through puts its own in front
of what the exception held, as ``PyTraceBack_Here`` does (a bare ``raise`` adds none), so ``tb_next``,
``tb_lineno`` and ``tb_frame.f_code`` are known. A traceback from the frame, or one whose exception came from
outside, lists frames the trace never saw: those reads stay graph breaks.

``traceback.clear_frames(tb)`` of such a traceback (``unittest``'s ``assertRaises`` calls it on leaving)
clears nothing: the frames it would list are inlined calls, which have no frames once compiled, and the
trace never hands one out (``tb_frame`` is not modelled), so no reader can see the difference.
"""

from __future__ import annotations

import os
import traceback
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .. import polyfills
from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class TracebackVariable(Variable):
    """The traceback an exception made while tracing got when the trace raised it (``owner``).

    A fresh one stands for each raise, so two different ones are never claimed to be one object
    (``is`` between them is refused, not answered)."""

    def __init__(self, owner: Variable) -> None:
        self.owner = owner
        #: where the traced frame was when the trace raised its exception (``raised_at``), None for one
        #: read from the frame: a real traceback lists the frames and lines of that raise, which the trace
        #: has no stand-in for, so rebuilding it breaks there instead, and the raise runs as ordinary Python
        self.raised_at: tuple[int, int] | None = None
        #: ``(code, line, is the compiled frame)`` of each frame it lists, the newest (catching) frame first; None
        #: when not all are known
        self.entries: tuple[tuple[types.CodeType | None, int, bool], ...] | None = None

    def python_type(self) -> type:
        return types.TracebackType

    def truth(self, tx: InstructionTranslator) -> bool:
        return True

    def reconstruct(self, codegen: PyCodegen) -> None:
        if getattr(self.owner, "traceback", None) is not self:
            # the exception was raised again or given another traceback since: this one is not reachable
            raise Unsupported("a traceback the compiled function read earlier", "its exception holds another one now")
        self.refuse_rebuild()
        codegen.reconstruct(self.owner)  # rebuilt raised, so its __traceback__ is set
        codegen.emit("LOAD_ATTR", "__traceback__")

    def raised_in_compiled_frame(self) -> int | None:
        """The line, when this traceback lists only the compiled frame (raised and caught there): what a
        rebuilt one gives by naming that frame (``bytecode_helpers.raised_here``)."""
        if self.entries is not None and len(self.entries) == 1 and self.entries[0][2]:
            return self.entries[0][1]
        return None

    def refuse_rebuild(self) -> None:
        """A traceback the trace raised cannot be rebuilt (nor its exception, which holds it): the graph breaks
        where the exception was raised instead, and the raise and the rest of the function run as they are."""
        if self.raised_at is not None:
            error = Unsupported("a traceback of an exception the compiled function raised",
                                "its frames and lines are those of the raise, which the trace has no stand-in for",
                                hint="the raise and the rest of the function run as ordinary Python")
            error.retry_at = self.raised_at
            raise error

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        """``tb_next``, ``tb_lineno`` and ``tb_frame`` (its ``f_code``) of a traceback whose frames are known."""
        if self.entries and name in ("tb_next", "tb_lineno", "tb_frame"):
            if name == "tb_lineno":
                return ConstantVariable(self.entries[0][1])
            if name == "tb_frame":
                return TracebackFrameVariable(self.entries[0][0])
            if len(self.entries) == 1:
                return ConstantVariable(None)
            rest = TracebackVariable(self.owner)  # a view of the rest, never handed out of the trace
            rest.entries = self.entries[1:]
            return rest
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return "the traceback of an exception raised while tracing"


#: a frame whose place in a real traceback is not known (see :func:`frame_entry`)
UNLISTED = object()

_POLYFILLS = os.path.dirname(polyfills.__file__)
_PACKAGE = os.path.dirname(_POLYFILLS)
#: polyfill modules whose functions all stand for C code, which lists no frame in a real traceback
_C_STAND_INS = frozenset(os.path.join(_POLYFILLS, f"{name}.py") for name in (
    "builtins", "collections", "exceptions", "functools", "heapq", "bisect", "itertools", "math", "operator"))


def frame_entry(code: types.CodeType, line: int, resumes: bool, root: bool) -> Any:
    """What a frame adds to the tracebacks of the exceptions passing it: its code (None for a resume function's,
    which stands for the user's function), line and whether it is the compiled frame itself; None for a polyfill
    standing for C code (no frame in eager); :data:`UNLISTED` for any other frame of the translator's own (a
    stand-in for Python code, whose real frames the trace does not know)."""
    if code.co_filename in _C_STAND_INS:
        return None
    if code.co_filename.startswith(_PACKAGE + os.sep):
        return UNLISTED
    return (None if resumes else code), line, root


def operation_entry(entry: Any, error: BaseException) -> Any:
    """What the frame an operation failed in adds to the traceback of the exception the trace raises for it
    (``error``, a ``UserError``): ``entry``, unless the real exception behind it (its ``__cause__``, raised by
    running the real callable on real values) passed a Python frame outside loom: eager lists those frames too,
    which the trace does not know."""
    tb = getattr(error.__cause__, "__traceback__", None)
    while tb is not None:
        if not tb.tb_frame.f_code.co_filename.startswith(_PACKAGE + os.sep):
            return UNLISTED
        tb = tb.tb_next
    return entry


def listed_frames(previous: Variable | None, known: bool, entry: Any) -> tuple | None:
    """The frames a new traceback lists: ``entry`` (None: none) in front of those of ``previous``, the
    traceback the exception held (None: it had none, which lists nothing when ``known``)."""
    if previous is None:
        below = () if known else None
    else:
        below = getattr(previous, "entries", None)
    if below is None or entry is UNLISTED:
        return None
    return below if entry is None else (entry, *below)


class TracebackFrameVariable(Variable):
    """``tb.tb_frame`` of a traceback the trace made: only its ``f_code`` is known, the frame's code object (None
    for a resume function's frame, which stands for the user's function it continues: not known here)."""

    def __init__(self, code: types.CodeType | None) -> None:
        self.code = code

    def python_type(self) -> type:
        return types.FrameType

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "f_code" and self.code is not None:
            return ConstantVariable(self.code)
        return super().var_getattr(tx, name)

    def reconstruct(self, codegen: PyCodegen) -> None:
        raise Unsupported("a frame object of a traceback made while tracing", "the frame does not exist once compiled")

    def describe(self) -> str:
        return "the frame of a traceback made while tracing"


def is_traceback_value(value: Variable) -> bool:
    """Whether ``value`` may be stored as ``__traceback__``: None or a traceback the trace knows."""
    if isinstance(value, TracebackVariable):
        return True
    return value.is_python_constant() and value.as_python_constant() is None


class WithTraceback(Variable):
    """``exc.with_traceback`` of an exception made while tracing: sets ``__traceback__`` and returns
    ``exc`` (``BaseException.with_traceback``)."""

    def __init__(self, receiver: Variable) -> None:
        self.receiver = receiver

    def python_type(self) -> type:
        return types.BuiltinMethodType

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if kwargs or len(args) != 1:
            raise Unsupported("with_traceback() with other than one positional argument", "not modelled")
        self.receiver.set_traceback(args[0])
        return self.receiver

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.receiver)  # the one object the other names hold
        codegen.emit("LOAD_ATTR", "with_traceback")

    def describe(self) -> str:
        return f"with_traceback of {self.receiver.describe()}"



def _clear_no_frames(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    return ConstantVariable(None)


def traceback_call(fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Callable[..., Variable] | None:
    """The model of ``fn(*args, **kwargs)``, a call into the (opaque) ``traceback`` module, where it is one
    on a traceback the trace made: ``clear_frames`` of it (or of None) clears no frame that exists once
    compiled. None for any other call, which stays a graph break."""
    if fn is traceback.clear_frames and not kwargs and len(args) == 1 and is_traceback_value(args[0]):
        return _clear_no_frames
    return None
