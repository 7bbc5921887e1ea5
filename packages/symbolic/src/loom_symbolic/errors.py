"""Errors the translator raises, and the structured reason attached to each unsupported construct."""

from __future__ import annotations

import linecache
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Location:
    """Where in the user's source something happened: file, line, the function and the source line."""

    filename: str
    lineno: int | None
    function: str

    @property
    def source_line(self) -> str:
        """The stripped text of the line, or '' when the file cannot be read."""
        if self.lineno is None:
            return ""
        return linecache.getline(self.filename, self.lineno).strip()

    def __str__(self) -> str:
        return f"{self.filename}:{self.lineno} in {self.function}"


@dataclass
class Reason:
    """Why the translator could not go on: what broke, why, where, and a hint for the user."""

    what: str
    why: str
    hint: str = ""
    location: Location | None = None
    # Locations of the inlined calls that led to the failure, outermost first.
    stack: list[Location] = field(default_factory=list)
    # Guards (kind, source, value) on facts that made the translator stop: the frame broken here is
    # compiled again once one changes (an optimizer's state, missing on its first step, then present).
    guards: list[tuple[Any, Any, Any]] = field(default_factory=list)
    # The rest of the frame runs as it is (its resume functions are refused): what comes next keeps
    # process state the translator cannot follow across instructions (a with block of warnings filters).
    rest_as_is: bool = False
    # The whole frame runs as it is: no split point keeps the process state right (a TorchFunctionMode
    # and a default-device region interleaved on torch's one mode stack, which a break's native region
    # exit would pop out of order).
    frame_as_is: bool = False
    # The break was met inside a loop body that a resume function runs pass after pass, and moved to the
    # loop's FOR_ITER (its iterator stands elsewhere on each pass): the construct is the body's, met again.
    at_loop_head: bool = False
    # The break is a resumed loop's own FOR_ITER, taken natively because its iterator stands elsewhere on
    # each pass (see ``variables/resumed_loops.py``): the loop's body broke before, so it is no construct
    # of its own.
    loop_iterator_moved: bool = False
    # The program raises here an exception no handler of the frame catches: the frame ends, by raising,
    # where its graph ends. What runs natively is the raise and its unwinding, the frame's exit (like a
    # return), so a frame compiler need not count it as a graph break.
    raises_out: bool = False

    def __str__(self) -> str:
        text = f"{self.what}: {self.why}"
        if self.location is not None:
            text += f"\n  at {self.location}"
            line = self.location.source_line
            if line:
                text += f"\n    {line}"
        if self.hint:
            text += f"\n  hint: {self.hint}"
        return text


class Unsupported(Exception):
    """A construct the translator cannot model; the caller breaks the graph or runs the frame as is."""

    def __init__(self, what: str, why: str = "", hint: str = "") -> None:
        super().__init__(f"{what}: {why}" if why else what)
        self.reason = Reason(what=what, why=why or what, hint=hint)


class UserError(Unsupported):
    """The traced program itself raised (or would raise) an exception at this point.

    Running the code natively raises it with the traceback the user expects, so it is treated like
    any other unsupported construct. ``exc_type`` is the exception Python would raise, so that
    constructs like ``getattr(obj, name, default)`` and ``hasattr`` can model the lookup failing.
    """

    def __init__(self, what: str, why: str = "", hint: str = "", exc_type: type[BaseException] = Exception,
                 exc_args: tuple | None = None, exc_attrs: dict[str, Any] | None = None) -> None:
        super().__init__(what, why, hint)
        self.exc_type = exc_type
        #: the exception's ``args`` exactly as Python would give them (so ``str(e)`` and ``e.args`` are
        #: known to the trace), or None when only its type is known
        self.exc_args = exc_args
        #: attributes Python sets on the exception besides ``args`` (an AttributeError's ``name`` and
        #: ``obj``), as variables or plain constants; an exception carrying them is not rebuilt from its
        #: args where it escapes
        self.exc_attrs = exc_attrs or {}


def shape_error(exc: BaseException) -> dict[str, Any]:
    """What a :class:`UserError` for ``exc``, raised by an op's fake run, says of the program's exception: an
    IndexError (an index out of a tensor's bounds, ``t[3]`` of size 3) is eager's own, from the same shape
    check, so the trace raises it (a handler, or the sequence protocol's end, catches it); other failures
    are left to the real run."""
    if type(exc) is IndexError:
        return {"exc_type": IndexError, "exc_args": (str(exc),)}
    return {}


def missing_attribute(owner: str, name: str, *, raised: BaseException | None = None, exact: bool = True,
                      obj: Any = None) -> UserError:
    """The error for ``owner.name`` when the attribute does not exist: ``raised`` where the real lookup
    raised it, else Python's own message. ``exact=False`` where a class's ``__getattr__`` may word it
    otherwise: the trace then never formats it (a handler that does breaks). ``obj``: the variable of the
    object looked up, which Python's generic lookup sets as the error's ``obj``."""
    message = str(raised) if raised is not None else f"{owner} has no attribute {name!r}"
    args = raised.args if raised is not None else (message,) if exact else None
    # Python sets the error's ``name`` too (``obj`` is left unknown without ``obj``: reading it breaks)
    attrs = {"name": getattr(raised, "name", None) if raised is not None else name}
    if obj is not None:
        attrs["obj"] = obj
    return UserError(f"attribute {name!r}", message, exc_type=AttributeError, exc_args=args, exc_attrs=attrs)


def missing_for_delete(owner: str, name: str) -> UserError:
    """The error of ``del obj.name`` where ``obj`` has no such attribute: Python's message, and (unlike a
    read's) no ``name`` or ``obj`` set on it."""
    message = f"{owner} has no attribute {name!r}"
    return UserError(f"deleting {name!r}", message, exc_type=AttributeError, exc_args=(message,),
                     exc_attrs={"name": None, "obj": None})


#: Builtin exceptions whose whole state is their ``args`` (``cls(*args)`` makes the same object again).
_REBUILT_FROM_ARGS = (ArithmeticError, LookupError, ValueError, TypeError, StopIteration, AssertionError)


def args_of(exc: BaseException) -> tuple | None:
    """``exc.args`` for a :class:`UserError` standing for ``exc``, raised by the program's own operation on
    its own values (a folded operator or builtin), when rebuilding ``type(exc)(*args)`` gives it back."""
    if type(exc).__module__ != "builtins" or not isinstance(exc, _REBUILT_FROM_ARGS) or isinstance(exc, UnicodeError):
        return None
    return exc.args
