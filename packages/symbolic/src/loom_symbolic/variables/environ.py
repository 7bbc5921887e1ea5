"""Reads of the process environment (``os.environ.get(k)``, ``os.environ[k]``, ``os.getenv(k)``).

The ``os`` module is otherwise opaque (it does I/O), but libraries read feature flags from the
environment on every call (Hugging Face's attention reads ``TRANSFORMERS_SDPA_FORCE_GQA``): a graph
break there splits every caller of the attention. A read of one string key is modelled as the
constant it returned, under a guard on that key, so changing the variable recompiles.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, Item

from ..errors import Unsupported, UserError
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_ENVIRON_SOURCE: Any = None


def _environ_source() -> Any:
    """Where the guards read the environment: ``os.environ``, looked up again on every check."""
    global _ENVIRON_SOURCE
    if _ENVIRON_SOURCE is None:
        _ENVIRON_SOURCE = Attr(Const(os), "environ")
    return _ENVIRON_SOURCE


def _key(args: list[Variable], what: str) -> str:
    try:
        key = args[0].as_python_constant()
    except Unsupported:
        key = None
    if type(key) is not str:
        raise Unsupported(what, "the variable's name is not a constant string")
    return key


def read_variable(tx: InstructionTranslator, key: str) -> str | None:
    """The variable's value now (None if unset), guarded so another value recompiles."""

    source = _environ_source()
    value = os.environ.get(key)
    if value is None:
        tx.output.guards.add("absent_key", source, key)
    else:
        tx.output.guards.add("constant", Item(source, key), value)
    return value


def _getitem(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    key = _key(args[1:], "os.environ[...]")
    value = read_variable(tx, key)
    if value is None:
        raise UserError("os.environ[...]", f"KeyError: {key!r}", exc_type=KeyError)
    return ConstantVariable(value)


def _getenv(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    if kwargs or not 1 <= len(args) <= 2:
        raise Unsupported("os.getenv(...)", "only os.getenv(key) and os.getenv(key, default) are modelled")
    value = read_variable(tx, _key(args, "os.getenv(...)"))
    if value is None:
        return args[1] if len(args) == 2 else ConstantVariable(None)
    return ConstantVariable(value)


def environment_read(fn: Any, args: list[Variable]) -> Callable[..., Variable] | None:
    """The model of calling ``fn(*args)`` if it reads the environment, else None.

    ``Mapping.get`` and ``Mapping.__contains__`` on ``os.environ`` are inlined and reach
    ``os.environ.__getitem__``.
    """
    if fn is os.getenv:
        return _getenv
    if fn is os._Environ.__getitem__ and args and getattr(args[0], "value", None) is os.environ:
        return _getitem
    return None
