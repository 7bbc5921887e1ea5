"""``decimal.Decimal`` values made in a trace from constants, and the operators between them.

A ``Decimal`` is immutable: ``Decimal("1.1")`` (from an int, a well-formed string, a float or a tuple) is exact
whatever the thread's decimal context says, so it is folded to a constant. Arithmetic reads that context (its
precision, rounding, exponent limits) and may signal (setting the context's sticky flags, or raising where a
trap is on): an operator is folded only where it signals nothing, run on a copy of the context in effect with
no traps and no flags, and its answer is then guarded on the context's ``prec``, ``rounding``, ``Emin``,
``Emax`` and ``clamp`` (``decimal.getcontext()`` asked again at every call). A comparison that signals
nothing reads no context and needs no guard. Anything that signals (an inexact quotient, a NaN compared) is a
graph break, run by Python with the real context; so is a ``context=`` argument, and an operator between a
Decimal and a value that is no constant (a ``Fraction`` made in the trace). Not guarded: ``str()`` of a
Decimal in scientific notation, which reads the context's ``capitals``.
"""

from __future__ import annotations

import decimal
import operator
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Called, Const

from ..errors import Unsupported, UserError, args_of
from . import operator_semantics as _operators
from .builtins import HANDLERS
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_CONTEXT_FIELDS = ("prec", "rounding", "Emin", "Emax", "clamp")
_COMPARISONS = (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge)
#: (a float signals FloatOperation, compared or mixed in: the fold below breaks there)
_OPERANDS = (int, float, decimal.Decimal)


def _quiet_context() -> decimal.Context:
    """A copy of the thread's context with every trap off and no flag set."""
    context = decimal.getcontext().copy()
    context.clear_flags()
    context.traps = dict.fromkeys(context.traps, False)
    return context


def _signalled(context: decimal.Context) -> bool:
    return any(context.flags.values())


def make_decimal(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``Decimal(value)`` of a constant: the value, folded (None: the class's own call, a break)."""
    if kwargs or len(args) > 1 or not all(a.is_python_constant() for a in args):
        return None
    value = args[0].as_python_constant() if args else "0"
    if not isinstance(value, (int, str, float, tuple, decimal.Decimal)):
        return None
    with decimal.localcontext(_quiet_context()) as context:  # (the copy it makes is the one signalled)
        try:
            made = decimal.Decimal(value)
        except (TypeError, ValueError):
            return None
    if _signalled(context):  # a malformed string: eager's signal, by the real context
        return None
    return ConstantVariable(made)


def _guard_context(tx: InstructionTranslator) -> None:
    context = Called(Const(decimal.getcontext))
    current = decimal.getcontext()
    for field in _CONTEXT_FIELDS:
        tx.output.guards.add("constant", Attr(context, field), getattr(current, field))


def decimal_operator(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``op(left, right)`` where a constant ``Decimal`` takes part (None: not such a call)."""
    known = [v.as_python_constant() if v.is_python_constant() else v for v in (left, right)]
    if not any(type(v) is decimal.Decimal for v in known):
        return None
    if not (left.is_python_constant() and right.is_python_constant()):  # a Fraction, a user's number
        raise Unsupported(f"operator {getattr(op, '__name__', op)} on {left.describe()} and {right.describe()}",
                          "a Decimal with a value that is no constant: not modelled")
    values = tuple(known)
    name = getattr(op, "__name__", repr(op))
    if not all(isinstance(v, _OPERANDS) for v in values):
        return None  # a str or a tuple: the generic fold raises eager's TypeError
    with decimal.localcontext(_quiet_context()) as context:
        try:
            result = op(*values)
        except (TypeError, ZeroDivisionError, ValueError, OverflowError) as exc:
            raise UserError(f"{name} raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                            exc_args=args_of(exc)) from exc
    if _signalled(context):
        raise Unsupported(f"operator {name} on Decimal values", "it signals a decimal condition (the thread's "
                          "context decides what that does)", hint="it runs as ordinary Python")
    if op not in _COMPARISONS:
        _guard_context(tx)
    return ConstantVariable(result)


HANDLERS[decimal.Decimal] = make_decimal
_operators.CONTAINER_OPERATORS.append(decimal_operator)
