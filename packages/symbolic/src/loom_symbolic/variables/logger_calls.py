"""Logging calls answered while tracing, as torch.compile answers them: ``logging.getLogger(name)`` and a
log call at a level the logger does not emit.

``getLogger(name)`` with a constant name is the real logger, guarded by asking ``logging.getLogger(name)``
again at every check (``Called``): that is the call itself, so a logger replaced in the manager, a new
logger class or a patched ``getLogger`` all compile again. Made while tracing, the call creates a missing
logger as the eager call would.

``logger.debug(...)`` where ``logger.isEnabledFor(DEBUG)`` is False does nothing in eager (the arguments
are not even formatted), so it is nothing in the trace, under a guard that asks ``isEnabledFor`` again:
a level enabled later (on the logger, a parent, ``logging.disable`` lifted) compiles again, and the call is
then made after the graph (:mod:`.deferred_calls`) or is a graph break, both asking the logger at run time
(no guard for an emitted level). The module's functions
(``logging.debug``) first call ``basicConfig()`` when the root logger has no handler, so they are
nothing only while it has one (guarded too). ``warn`` issues a DeprecationWarning first: never nothing.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const
from loom_guards.query_sources import Called

from .constant import ConstantVariable, is_constant_value
from .deferred_calls import LoggerAnswer
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_LOGGING = Const(logging, "logging")

#: Logger methods → the level they log at (``log`` takes it as its first argument).
_METHOD_LEVELS = {
    logging.Logger.debug: logging.DEBUG, logging.Logger.info: logging.INFO,
    logging.Logger.warning: logging.WARNING, logging.Logger.error: logging.ERROR,
    logging.Logger.exception: logging.ERROR, logging.Logger.critical: logging.CRITICAL,
    logging.Logger.fatal: logging.CRITICAL, logging.Logger.log: None,
}

#: The module's functions (the root logger's, after ``basicConfig()`` if it has no handler).
_FUNCTION_LEVELS = {
    logging.debug: logging.DEBUG, logging.info: logging.INFO, logging.warning: logging.WARNING,
    logging.error: logging.ERROR, logging.exception: logging.ERROR, logging.critical: logging.CRITICAL,
    logging.fatal: logging.CRITICAL, logging.log: None,
}


def logger_call(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """The value of ``fn(*args, **kwargs)`` for a call into ``logging`` answered while tracing, or None
    (the call is made after the graph or is a graph break, as before)."""
    if fn is logging.getLogger:
        return _get_logger(tx, args, kwargs)
    if fn in _METHOD_LEVELS:
        if not args or args[0].source is None:
            return None
        return _quiet(tx, args[0], args[0].source, _METHOD_LEVELS[fn], args[1:])
    if fn in _FUNCTION_LEVELS:
        root_source = Attr(_LOGGING, "root")
        root = logging.root
        if not isinstance(root, logging.Logger) or type(root).hasHandlers is not logging.Logger.hasHandlers:
            return None
        # ``basicConfig()`` (a handler added) runs first when the root logger has none.
        if not root.hasHandlers():
            return None
        quiet = _quiet(tx, None, root_source, _FUNCTION_LEVELS[fn], args, root)
        if quiet is not None:
            tx.output.guards.add("identity", root_source, root)
            tx.output.guards.add("constant", LoggerAnswer(root_source, "hasHandlers", ()), True)
        return quiet
    return None


def _get_logger(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``logging.getLogger(name)``: the real logger, guarded by the same call giving the same object."""
    names = [*args, *kwargs.values()]
    if len(names) > 1 or (kwargs and "name" not in kwargs):
        return None
    if names and not (isinstance(names[0], ConstantVariable) and is_constant_value(names[0].value)):
        return None
    name = names[0].value if names else None
    if name is not None and not isinstance(name, str):
        return None  # a TypeError in eager: made there
    logger = logging.getLogger(name)
    text = "logging.getLogger()" if name is None else f"logging.getLogger({name!r})"
    tx.output.guards.add("identity", Called(Attr(_LOGGING, "getLogger"), (name,) if names else ()), logger)
    return wrap(tx, logger, Const(logger, text))


def _quiet(tx: InstructionTranslator, receiver: Variable | None, source: Any, level: int | None,
           rest: list[Variable], logger: Any = None) -> Variable | None:
    """None for a call the logger would emit (made after the graph or a break, either asking the logger at
    run time: no guard); otherwise nothing (a None result), guarded on ``isEnabledFor(level)`` still
    answering False."""
    if logger is None:
        logger = getattr(receiver, "value", None)
    if not isinstance(logger, logging.Logger) or type(logger).isEnabledFor is not logging.Logger.isEnabledFor:
        return None  # a subclass may answer (or log) its own way
    if level is None:  # ``log(level, msg, ...)``: a level that is not an int raises a TypeError first
        if not rest or not isinstance(rest[0], ConstantVariable) or type(rest[0].value) is not int:
            return None
        level = rest[0].value
    if logger.isEnabledFor(level):
        return None
    tx.output.guards.add("constant", LoggerAnswer(source, "isEnabledFor", (level,)), False)
    return ConstantVariable(None)
