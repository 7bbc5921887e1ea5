"""``with warnings.catch_warnings():`` blocks in the trace: the block's whole warnings story made after the graph.

A ``catch_warnings`` block changes process state (``warnings.filters``, ``showwarning``), so running its
``__enter__`` line by line is not traced; torch.compile skips the frame. What the block does to that state
is fixed by constant arguments: entering copies the filters (and, given ``action``, adds one), the
``simplefilter`` / ``filterwarnings`` / ``resetwarnings`` calls inside change the copy, and leaving puts the
saved state back. The trace records each of them (and the ``warnings.warn`` calls between them,
:mod:`.deferred_warnings`) as a call the rewritten code makes after the graph, in program order: a real
``catch_warnings`` object is made and entered, the filter calls made, the warnings made and the object left,
so the output and the state left are eager's.

The trace knows the filters a warning inside the block meets as the filters at the frame's entry changed by
the block's recorded steps (:func:`simulated_filters`); where a warning goes is guarded that way. It stays
sound only while nothing in the trace reads the state the replay changes:

- ``catch_warnings(record=True)`` (its list is read by the frame) and a manager given ``module=`` are not
  modelled: the break is at the manager, and the rest of the function runs as it is (as before);
- a read of the warnings state inside the block (``warnings.filters``), a warning the filters turn into an
  error, any other break inside the block: the block cannot be re-entered at the break (its filters would be
  applied twice, its exit lost), so the break goes to where the manager was made (``retry_at``).
"""

from __future__ import annotations

import re
import threading
import warnings
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from . import ctx
from .base import Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The class the trace models (:class:`CatchWarningsVariable`).
CATCH_WARNINGS = warnings.catch_warnings

_ACTIONS = ("error", "ignore", "always", "default", "module", "once")

#: Names of ``warnings``' process state: read inside a traced block, they would show the state before the
#: replay (a break, moved to where the block's manager was made).
STATE_NAMES = frozenset({"filters", "showwarning", "_showwarnmsg_impl", "_showwarnmsg", "defaultaction",
                         "onceregistry", "_filters_version", "_showwarning_orig"})


# -- the trace's record ----------------------------------------------------------------------------------
class WarningsSteps:
    """The steps the open traced ``catch_warnings`` blocks took, in order (``("enter",)``, ``("add", item,
    append)``, ``("reset",)``, ``("exit",)``); emptied when the outermost block is left, whose exit puts the
    state back as it was at its entry.

    While the trace is inside a block, the real filters are the block's too (``real``: the managers entered
    for the trace, the filter calls made on their copy): what the trace itself makes warn (a deprecated
    torch attribute read) is filtered as eager filters it, and the filters a warning meets are the real ones."""

    def __init__(self) -> None:
        self.steps: list[tuple] = []
        self.depth = 0
        self.real: list[warnings.catch_warnings] = []

    def snapshot(self) -> tuple:
        """The steps so far, for a guard: where a warning goes is decided by them."""
        return tuple(self.steps)


def steps_of(output: Any) -> WarningsSteps:
    """The record of ``output``'s trace (made on first use)."""
    return output.__dict__.setdefault("warnings_steps", WarningsSteps())


def open_steps(output: Any) -> tuple:
    """The steps taken by the blocks open now (empty outside any)."""
    found = output.__dict__.get("warnings_steps")
    return found.snapshot() if found is not None and found.depth else ()


def simulated_filters(filters: list, steps: tuple) -> list:
    """``filters`` (the list at the frame's entry) after ``steps``, as ``catch_warnings`` and ``_add_filter``
    change it."""
    saved: list[list] = []
    current = list(filters)
    for step in steps:
        if step[0] == "enter":
            saved.append(current)
            current = list(current)
        elif step[0] == "exit":
            current = saved.pop()
        elif step[0] == "reset":
            current = []
        else:
            _, item, append = step
            if not append:
                if item in current:
                    current.remove(item)
                current.insert(0, item)
            elif item not in current:
                current.append(item)
    return current


def filter_item(action: Any, message: Any = "", category: Any = Warning, module: Any = "", lineno: Any = 0,
                *, regex: bool = True) -> tuple | None:
    """The item ``filterwarnings`` (``simplefilter``, ``regex=False``) adds, or None where it would fail its
    checks (an AssertionError in eager: made natively)."""
    if (action not in _ACTIONS or type(message) is not str or not isinstance(category, type)
            or not issubclass(category, Warning) or type(module) is not str or type(lineno) is not int or lineno < 0):
        return None
    if not regex:
        return (action, None, category, None, lineno)
    try:
        compiled = re.compile(message, re.I) if message else None
        module_re = re.compile(module) if module else None
    except re.error:
        return None
    return (action, compiled, category, module_re, lineno)


# -- what the rewritten code calls -------------------------------------------------------------------------
_ENTERED = threading.local()


class EnterBlock:
    """Made after the graph: a real ``catch_warnings(**options)``, entered, kept until :class:`ExitBlock`."""

    __slots__ = ("__qualname__", "options")

    def __init__(self, options: dict) -> None:
        self.options = options
        self.__qualname__ = "warnings.catch_warnings.__enter__"  # how explain describes the replayed call

    def __call__(self) -> None:
        manager = warnings.catch_warnings(**self.options)
        manager.__enter__()
        _ENTERED.__dict__.setdefault("stack", []).append(manager)


class EnterGiven:
    """Made after the graph: enter the program's own ``catch_warnings`` object (one read from the frame), kept
    until :class:`ExitBlock`."""

    __slots__ = ("__qualname__",)

    def __init__(self) -> None:
        self.__qualname__ = "warnings.catch_warnings.__enter__"

    def __call__(self, manager: warnings.catch_warnings) -> None:
        manager.__enter__()
        _ENTERED.__dict__.setdefault("stack", []).append(manager)


class ExitBlock:
    """Made after the graph: leave the innermost block :class:`EnterBlock` entered (its saved state back)."""

    __slots__ = ("__qualname__",)

    def __init__(self) -> None:
        self.__qualname__ = "warnings.catch_warnings.__exit__"

    def __call__(self) -> None:
        _ENTERED.stack.pop().__exit__(None, None, None)


class LeavingOnError:
    """A call made after the graph inside a replayed block: should it raise, the blocks the replay entered are
    left first (their saved warnings state put back), as eager's ``with`` statements leave them on the way out,
    so no filter of the block outlives the frame."""

    __slots__ = ("__qualname__", "fn")

    def __init__(self, fn: Any) -> None:
        self.fn = fn
        self.__qualname__ = getattr(fn, "__qualname__", type(fn).__qualname__)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return self.fn(*args, **kwargs)
        except BaseException:
            stack = _ENTERED.__dict__.get("stack", [])
            while stack:  # only this replay's blocks: every replay leaves the blocks it entered
                stack.pop().__exit__(None, None, None)
            raise


class FilterCall:
    """Made after the graph: ``warnings.<fn>(*args, **kwargs)`` with the trace's constant arguments."""

    __slots__ = ("__qualname__", "args", "fn", "kwargs")

    def __init__(self, fn: Any, args: tuple, kwargs: dict) -> None:
        self.fn, self.args, self.kwargs = fn, args, kwargs
        self.__qualname__ = f"warnings.{fn.__name__}"

    def __call__(self) -> None:
        self.fn(*self.args, **self.kwargs)


def defer(tx: InstructionTranslator, fn: Any) -> None:
    """``fn()`` made by the rewritten code after the graph, in program order."""
    tx.output.side_effects.deferred_call(fn, [], {}, None)


# -- the manager and its block -------------------------------------------------------------------------------
class CatchWarningsVariable(Variable):
    """A ``warnings.catch_warnings(...)`` made in the trace with constant arguments (with ``record=True``, the list
    it enters with is a :class:`RecordedLogVariable`: the block is refused where that list is read)."""

    def __init__(self, options: dict, created_at: Any, source: Any = None) -> None:
        self.options = options
        #: a manager the program made before the frame (or before a break): the replay enters that object
        self.source = source
        #: where the manager was made: a break inside its block goes there instead
        self.created_at = created_at
        self.entered = False

    def python_type(self) -> type:
        return warnings.catch_warnings

    def _refuse(self, what: str, why: str) -> Unsupported:
        error = Unsupported(what, why, hint="the block and the rest of the function run as ordinary Python")
        error.reason.rest_as_is = True
        error.retry_at = self.created_at
        return error

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        if self.entered:  # eager's RuntimeError("Cannot enter ... twice"), natively
            raise self._refuse("a warnings.catch_warnings object entered twice", "eager raises RuntimeError")
        self.entered = True
        record = steps_of(tx.output)
        record.depth += 1
        record.steps.append(("enter",))
        tx.output.side_effects.deferred_wrapper = LeavingOnError
        action = self.options.get("action")
        if action is not None:
            item = filter_item(action, category=self.options.get("category", Warning),
                               lineno=self.options.get("lineno", 0), regex=False)
            if item is None:
                raise self._refuse("warnings.catch_warnings() with these filter arguments", "eager raises AssertionError")
            record.steps.append(("add", item, bool(self.options.get("append", False))))
        if self.source is not None:
            tx.output.side_effects.deferred_call(EnterGiven(), [self], {}, None)
        else:
            defer(tx, EnterBlock(self.options))
        real = warnings.catch_warnings(**self.options)
        real.__enter__()
        record.real.append(real)
        log = RecordedLogVariable(self) if self.options.get("record") else ConstantVariable(None)
        return CatchWarningsExitVariable(self), log

    def reconstruct(self, codegen) -> None:
        """The program's own manager; else a fresh, not entered one with the same options (made before its
        block, live at a break)."""
        if self.source is not None:
            codegen.load_source(self.source)  # entered for real by the replay, where the trace entered it
            return
        if self.entered:
            raise self._refuse("a warnings.catch_warnings object entered before a graph break",
                               "the object the block entered is not kept by the compiled code")
        codegen.call_const(fresh_manager, 1, lambda: codegen.load_const(dict(self.options)))

    def describe(self) -> str:
        return "warnings.catch_warnings()"


def fresh_manager(options: dict) -> warnings.catch_warnings:
    """A new ``warnings.catch_warnings(**options)``, not entered (called by the rewritten code)."""
    return warnings.catch_warnings(**options)


class RecordedLogVariable(Variable):
    """The list a ``catch_warnings(record=True)`` block collects its warnings into. The block's warnings are made
    after the graph (into the list the replayed block makes), so the trace cannot show them: a block that never
    reads the list (no ``as``, or a name left unread) is one graph; any use of it runs the block as Python."""

    def __init__(self, manager: CatchWarningsVariable) -> None:
        self.manager = manager

    def python_type(self) -> type:
        return list

    def _read(self) -> Unsupported:
        return self.manager._refuse("reading the list of a warnings.catch_warnings(record=True) block",
                                    "the block's warnings are made after the graph")

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        raise self._read()

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        raise self._read()

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        raise self._read()

    def truth(self, tx: InstructionTranslator) -> bool:
        raise self._read()

    def reconstruct(self, codegen) -> None:
        raise self._read()

    def describe(self) -> str:
        return "the warnings list of a catch_warnings(record=True) block"


class CatchWarningsExitVariable(ctx.RegionExitVariable):
    """The ``__exit__`` BEFORE_WITH leaves for a traced ``catch_warnings`` block: leaving records the exit,
    made after the graph; a break inside the block goes to where the manager was made instead."""

    def leave(self, tx: InstructionTranslator) -> None:
        record = steps_of(tx.output)
        record.steps.append(("exit",))
        record.depth -= 1
        if not record.depth:
            record.steps.clear()  # the outermost exit puts back the entry state
            tx.output.side_effects.deferred_wrapper = None
        record.real.pop().__exit__(None, None, None)
        defer(tx, ExitBlock())

    def reconstruct(self, codegen) -> None:
        raise self.manager._refuse("a graph break inside a warnings.catch_warnings block",
                                   "the block's filters, made after the graph, cannot be re-entered at the break")


_OPTIONS = ("record", "module", "action", "category", "lineno", "append")


def make_catch_warnings(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``warnings.catch_warnings(...)`` in the trace: a :class:`CatchWarningsVariable`, or None where it is not
    modelled (``module=``, an argument known only at run time)."""
    if args or set(kwargs) - set(_OPTIONS):
        return None
    if not all(value.is_python_constant() for value in kwargs.values()):
        return None
    options = {name: value.as_python_constant() for name, value in kwargs.items()}
    if options.pop("module", None) is not None:
        return None
    if "record" in options and not options["record"]:
        del options["record"]  # record=False: the default
    return CatchWarningsVariable(options, tx.root().break_point())  # record=True: refused where it is entered


def leave_real_blocks(output: Any) -> None:
    """Leave the real blocks a trace entered and did not leave (it stopped, or broke, inside a block)."""
    found = output.__dict__.get("warnings_steps")
    while found is not None and found.real:
        found.real.pop().__exit__(None, None, None)


def refuse_state_read(tx: InstructionTranslator, name: str, doing: str = "reading") -> None:
    """``warnings.<name>`` read (or assigned, ``doing``) inside a traced block: a break (the trace would see the
    state before the replay; a ``showwarning`` assigned would not decide where the block's warnings go)."""
    if name in STATE_NAMES and open_steps(tx.output):
        error = Unsupported(f"{doing} warnings.{name} inside a warnings.catch_warnings block",
                            "the block's filters are made after the graph: the trace would read the state before them",
                            hint="the block and the rest of the function run as ordinary Python")
        error.reason.rest_as_is = True
        raise error


def options_of(manager: warnings.catch_warnings) -> dict | None:
    """The options a not entered ``catch_warnings`` object of the program was made with, or None where it is not
    modelled (entered already, ``record=True``, another ``module``)."""
    if manager._entered or manager._record or manager._module is not warnings:
        return None
    if manager._filter is None:
        return {}
    action, category, lineno, append = manager._filter
    return {"action": action, "category": category, "lineno": lineno, "append": append}
