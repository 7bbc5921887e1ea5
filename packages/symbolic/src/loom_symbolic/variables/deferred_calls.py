"""Calls the trace does not run but the rewritten code makes after the graph, in program order with
the other side effects: logging calls (``logger.info("step %d", n)``, ``logging.warning(...)``).

A log call does I/O through handlers the program configured, so it is not traced; a graph break at
each one (torch.compile's answer) splits the graph around every ``logger.debug`` in a model. What a log
record holds is fixed by the call's arguments and by the frame that made it (``findCaller``: file,
function and line), so a call made by the compiled frame itself, whose arguments are values that
cannot change afterwards (constants, symbolic sizes), is recorded and made by the rewritten code at
the same line of the same frame, after the graph and before anything the program does later. Whether
the logger is enabled, its handlers and filters are consulted then, at run time, as in eager.

Made later, a record must not be seen by the trace: a handler that writes to a list the function then
reads would show the trace a state eager never had. So a call is deferred only while every handler the
record would reach is one of logging's own writing to a file or stream, with logging's own formatter and
no filters (:func:`standard_output_only`), a fact guarded on every call (``StandardLogging``).
"""

from __future__ import annotations

import io
import logging
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Const
from loom_guards.sources import _Chained, _check_base, _set_chained

from .constant import ConstantVariable, is_constant_value
from .symbolic_scalars import SymbolicVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_LEVEL_NAMES = ("debug", "info", "warning", "warn", "error", "critical", "fatal", "log")

#: Logger methods and the module's functions (the root logger's) made after the graph.
DEFERRED = frozenset(
    [getattr(logging.Logger, name) for name in _LEVEL_NAMES if hasattr(logging.Logger, name)]
    + [getattr(logging, name) for name in _LEVEL_NAMES if hasattr(logging, name)]
)

#: Keywords whose meaning depends on the moment of the call (the exception being handled).
_MOMENT_KEYWORDS = frozenset({"exc_info", "stack_info"})


#: Handlers whose output goes only to a file or stream (or nowhere), never back into the program.
_STANDARD_HANDLERS = frozenset({logging.StreamHandler, logging.FileHandler, logging.NullHandler,
                                type(logging.lastResort)})


def standard_output_only(logger: Any) -> bool:
    """Whether a record logged through ``logger`` reaches only logging's own handlers writing to an I/O
    stream, formatted by logging's own formatter, with no filter anywhere on the way."""
    node = logger
    while node is not None:
        if not isinstance(node, logging.Logger) or node.filters:
            return False
        for handler in node.handlers:
            if type(handler) not in _STANDARD_HANDLERS or handler.filters:
                return False
            if type(handler.formatter) not in (type(None), logging.Formatter):
                return False
            stream = getattr(handler, "stream", None)
            if stream is not None and not isinstance(stream, io.IOBase):
                return False
        if not node.propagate:
            break
        node = node.parent
    return True


class StandardLogging(_Chained):
    """``standard_output_only(base)`` for a logger: guarded True while log calls are made after the graph."""

    __slots__ = ()
    fetch_cost = 6

    def __init__(self, base: Any) -> None:
        _set_chained(self, _check_base("StandardLogging", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value: Any) -> bool:
        return standard_output_only(base_value)

    def __str__(self) -> str:
        return f"<{self._base} logs to streams only>"


class LoggerAnswer(_Chained):
    """``base.<query>(*args)`` for a logger query (``isEnabledFor(level)``): guarded equal to the answer
    the trace used, so a change of level (on the logger, a parent, ``logging.disable``) compiles again."""

    __slots__ = ("_query", "_query_args")
    fetch_cost = 4

    def __init__(self, base: Any, query: str, args: tuple) -> None:
        _set_chained(self, _check_base("LoggerAnswer", base))
        object.__setattr__(self, "_query", query)
        object.__setattr__(self, "_query_args", args)

    def _key(self) -> tuple:
        return (self._base, self._query, self._query_args)

    def _args(self) -> tuple:
        return (self._base, self._query, self._query_args)

    def read_from(self, base_value: Any) -> Any:
        return getattr(base_value, self._query)(*self._query_args)

    def __str__(self) -> str:
        return f"{self._base}.{self._query}{self._query_args!r}"


#: Logger methods that only read the logging configuration: answered while tracing, the answer guarded.
QUERIES = frozenset({logging.Logger.isEnabledFor, logging.Logger.getEffectiveLevel})


def answer_query(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``logger.isEnabledFor(level)`` / ``logger.getEffectiveLevel()`` on a logger the rewritten code can
    reach, with constant arguments: the answer now, guarded; None otherwise (the call stays a break)."""
    if fn not in QUERIES or kwargs or not args or args[0].source is None:
        return None
    logger = getattr(args[0], "value", None)
    rest = args[1:]
    if not isinstance(logger, logging.Logger) or not all(
            isinstance(a, ConstantVariable) and is_constant_value(a.value) for a in rest):
        return None
    query_args = tuple(a.value for a in rest)
    answer = fn(logger, *query_args)
    tx.output.guards.add("constant", LoggerAnswer(args[0].source, fn.__name__, query_args), answer)
    return ConstantVariable(answer)


def fixed(value: Variable) -> bool:
    """A value the rest of the trace cannot change: a constant, a symbolic number, or a tuple (``x.shape``)
    of such values (a tuple subclass may define its own ``__str__``: only tuples and ``torch.Size``)."""
    if isinstance(value, SymbolicVariable):
        return True
    if getattr(value, "container_type", None) is tuple and value.python_type() in (tuple, torch.Size):
        return all(fixed(item) for item in value.items)
    return isinstance(value, ConstantVariable) and is_constant_value(value.value)


def defer_call(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """Record ``fn(*args, **kwargs)`` to be made after the graph, or None if it must run where it is (a
    graph break): a call from a function inlined into the frame (its record would name that function),
    or one whose arguments may still change (a tensor, a list) or depend on the moment of the call."""
    if fn not in DEFERRED or tx.parent is not None or _MOMENT_KEYWORDS & kwargs.keys():
        return None
    receiver = args[:1] if fn.__qualname__.startswith("Logger.") else []
    if not all(fixed(value) for value in [*args[len(receiver):], *kwargs.values()]):
        return None
    if receiver and receiver[0].source is None:
        return None  # a logger the rewritten code cannot reach
    logger_source = receiver[0].source if receiver else Const(logging.root, "logging.root")
    logger = getattr(receiver[0], "value", None) if receiver else logging.root
    if not standard_output_only(logger):
        return None
    tx.output.guards.add("constant", StandardLogging(logger_source), True)
    tx.output.side_effects.deferred_call(fn, args, kwargs, tx.location().lineno)
    return ConstantVariable(None)
