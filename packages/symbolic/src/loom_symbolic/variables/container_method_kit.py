"""What the container method modules share: the table-filling decorator and small argument helpers."""

from __future__ import annotations

import operator
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .containers import Method

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


#: What a method returning None gives back.
NONE = ConstantVariable(None)


def table_filler(table: dict[str, Method]) -> Callable[..., Callable[[Method], Method]]:
    """A decorator that adds its function to ``table`` (one of :mod:`.containers`' method tables)."""

    def method(*names: str) -> Callable[[Method], Method]:
        def register(fn: Method) -> Method:
            for name in names:
                table[name] = fn
            return fn

        return register

    return method


def constant_arg(arg: Variable, what: str) -> Any:
    """``arg``'s value, which the method needs while tracing (else the call is not modelled)."""
    if not arg.is_python_constant():
        raise Unsupported(f"{what} with a value known only at run time", "not modelled")
    return arg.as_python_constant()


def real_error_args(operation: Callable[..., Any], *args: Variable) -> tuple | None:
    """The ``args`` of the exception ``operation`` raises on the real values of ``args`` (an empty list's
    ``index``: its message is this Python's own), or None when they cannot be known. An argument that is not
    a constant is stood for by a fresh object: a message that does not show it (``tuple.index``'s) is the same
    for any value, one that shows its repr (``list.index``'s) is not known."""
    probes = [a.as_python_constant() if a.is_python_constant() else object() for a in args]
    try:
        operation(*probes)
    except Exception as exc:  # the very exception the program raises
        shown = repr(exc.args)
        if any(not a.is_python_constant() and repr(p) in shown for a, p in zip(args, probes)):
            return None
        return exc.args
    return None


def values_equal(tx: InstructionTranslator, a: Variable, b: Variable) -> bool:
    """``a == b`` as Python answers it for container searches (identity first)."""
    return _operators.known_same(a, b) or _operators.binary(tx, operator.eq, a, b).truth(tx)

