"""Raising and handling exceptions inside traced code (3.11's exception-table protocol)."""

from __future__ import annotations

from ..errors import Unsupported
from ..variables.constant import ConstantVariable
from ..variables.exception_star import match_star, prep_reraise_star
from ..variables.exception_state import none_handled_by_caller
from ..variables.exception_values import ExceptionVariable, SymbolicException, instantiate, raised
from ..variables.registry import wrap_constant_like
from .registry import handler


@handler("RAISE_VARARGS")
def raise_varargs(tx, ins) -> None:
    args = tx.popn(ins.arg)
    if not args:  # re-raises the exception being handled, here or in a caller, leaving its chain as it is
        handled = tx.handled_exception()
        if handled is None:
            if not none_handled_by_caller(tx):  # the caller's exception, only known when the frame runs
                raise Unsupported("a bare raise with no active exception in the trace", "the caller's is re-raised")
            message = ConstantVariable("No active exception to reraise")  # CPython's own RuntimeError
            raise SymbolicException(raised(tx, ExceptionVariable(RuntimeError, [message])))
        raise SymbolicException(handled, again=True)
    exc = instantiate(tx, args[0])
    if len(args) == 2:
        cause = args[1]
        if not (isinstance(cause, ExceptionVariable) or _is_none(cause)):
            cause = instantiate(tx, cause, "exception causes must derive from BaseException")
        exc.set_cause(cause)
    raise SymbolicException(raised(tx, exc))


def _is_none(value) -> bool:
    return value.is_python_constant() and value.as_python_constant() is None


@handler("RERAISE")
def reraise(tx, ins) -> None:
    exc = tx.pop()
    if ins.arg:
        tx.pop()  # the saved instruction offset (lasti); unwinding recomputes it
    raise SymbolicException(exc, again=True)


@handler("PUSH_EXC_INFO")
def push_exc_info(tx, ins) -> None:
    exc = tx.pop()
    tx.exc_info_depths.append(len(tx.stack))
    tx.push(tx.exc_info[-1] if tx.exc_info else ConstantVariable(None))
    tx.exc_info.append(exc)
    tx.push(exc)


@handler("POP_EXCEPT")
def pop_except(tx, ins) -> None:
    tx.pop()  # the exception that was active before the handler
    if tx.exc_info:
        tx.exc_info.pop()
        tx.exc_info_depths.pop()


@handler("CHECK_EXC_MATCH")
def check_exc_match(tx, ins) -> None:
    expected = tx.pop().as_python_constant()
    exc = tx.peek()
    if not isinstance(exc, ExceptionVariable):
        raise Unsupported("except clause on a value that is not a traced exception", "not modelled")
    if not all(isinstance(c, type) and issubclass(c, BaseException)
               for c in (expected if isinstance(expected, tuple) else (expected,))):
        # CPython's own TypeError, raised while the matched exception is handled (its __context__)
        message = ConstantVariable("catching classes that do not inherit from BaseException is not allowed")
        raise SymbolicException(raised(tx, ExceptionVariable(TypeError, [message])))
    tx.push(ConstantVariable(issubclass(exc.cls, expected)))


@handler("CHECK_EG_MATCH")
def check_eg_match(tx, ins) -> None:
    # Stack: [..., exception, type] -> [..., rest, match] on a match (which becomes the handled exception),
    # else [..., exception, None]
    kind = tx.pop()
    rest, match = match_star(tx, tx.pop(), kind)
    tx.push(rest)
    tx.push(ConstantVariable(None) if match is None else match)
    if match is not None and tx.exc_info:
        tx.exc_info[-1] = match


@handler("PREP_RERAISE_STAR")
def prep_reraise_star_op(tx, ins) -> None:
    excs = tx.pop()
    tx.push(prep_reraise_star(tx, tx.pop(), excs))


@handler("WITH_EXCEPT_START")
def with_except_start(tx, ins) -> None:
    # Stack: [..., exit function, lasti, previous exception, exception]
    exc = tx.peek(1)
    exit_callable = tx.peek(4)

    # __exit__ gets the exception's traceback, as CPython reads it off the exception (never None here)
    tb = exc.traceback if exc.traceback is not None else exc.var_getattr(tx, "__traceback__")
    result = exit_callable.call(tx, [wrap_constant_like(exc.cls), exc, tb], {})
    tx.push(result)
