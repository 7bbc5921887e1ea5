"""``try``/``except*`` (PEP 654) inside traced code: what CHECK_EG_MATCH and PREP_RERAISE_STAR (3.12: the
PREP_RERAISE_STAR intrinsic) do.

Each ``except*`` clause splits the exception still unhandled into the part it matches (a naked exception
is wrapped in an ``ExceptionGroup("", [exc])``) and the rest, through the group's ``split`` (the Python
version in ``polyfills/exceptions.py``). Once the clauses ran, what they raised and the rest become the
exception the statement raises, as ``_PyExc_PrepReraiseStar`` builds it: ``prep_reraise_star`` there,
told which exceptions carry the original's metadata (re-raised ones), which the trace knows exactly.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .. import polyfills
from ..errors import Unsupported
from . import functions as _functions
from .base import Variable, is_none_constant
from .constant import ConstantVariable
from .containers import ListVariable, TupleVariable
from .exception_groups import ExceptionGroupVariable, make_group
from .exception_values import ExceptionVariable, SymbolicException, raised

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_NOT_A_CLASS = "catching classes that do not inherit from BaseException is not allowed"
_A_GROUP_CLASS = "catching ExceptionGroup with except* is not allowed. Use except instead."


def _check_clause_type(tx: InstructionTranslator, kind: Variable) -> None:
    """CPython's TypeError for an ``except*`` type that is no exception class, or a group class."""
    if not kind.is_python_constant():
        raise Unsupported(f"except* {kind.describe()}", "only exception classes known while tracing are modelled")
    value = kind.as_python_constant()
    for cls in value if isinstance(value, tuple) else (value,):
        if not (isinstance(cls, type) and issubclass(cls, BaseException)):
            raise _error(tx, _NOT_A_CLASS)
        if issubclass(cls, BaseExceptionGroup):
            raise _error(tx, _A_GROUP_CLASS)


def _error(tx: InstructionTranslator, message: str) -> SymbolicException:
    return SymbolicException(raised(tx, ExceptionVariable(TypeError, [ConstantVariable(message)])))


def match_star(tx: InstructionTranslator, exc: Variable, kind: Variable) -> tuple[Variable, Variable | None]:
    """CHECK_EG_MATCH: (the rest, the matched part) of ``exc`` for ``except* kind``; the matched part is
    None when nothing matches (the rest is then ``exc`` itself)."""
    _check_clause_type(tx, kind)
    if is_none_constant(exc):
        return exc, None
    if not isinstance(exc, ExceptionVariable):
        raise Unsupported(f"except* over {exc.describe()}", "not a traced exception")
    expected = kind.as_python_constant()
    if issubclass(exc.cls, expected):
        if isinstance(exc, ExceptionGroupVariable) or issubclass(exc.cls, BaseExceptionGroup):
            return ConstantVariable(None), exc
        wrapped = make_group(tx, BaseExceptionGroup, [ConstantVariable(""), TupleVariable([exc])], {})
        wrapped.was_raised()  # CPython gives the wrapping group a traceback of this frame
        wrapped.traceback.raised_at = tx.root().break_point()
        return ConstantVariable(None), wrapped
    if not issubclass(exc.cls, BaseExceptionGroup):
        return exc, None
    parts = exc.var_getattr(tx, "split").call(tx, [kind], {})
    if not isinstance(parts, TupleVariable) or len(parts.items) != 2:
        raise Unsupported(f"except* over a {exc.cls.__name__}", "its split() does not give a pair")
    match, rest = parts.items
    if is_none_constant(match):
        return exc, None
    return rest, match


def _same_metadata(exc: Variable, orig: ExceptionVariable) -> bool:
    """Whether ``exc`` has ``orig``'s traceback, cause and context objects (CPython's
    ``is_same_exception_metadata``): it was re-raised, or split off ``orig``."""
    if not isinstance(exc, ExceptionVariable) or exc.source is not None or orig.source is not None:
        raise Unsupported("except* re-raising an exception from outside the compiled function", "not modelled")
    if "__notes__" in exc.attrs or "__notes__" in orig.attrs:
        raise Unsupported("except* re-raising an exception with notes", "not modelled")
    return exc.traceback is orig.traceback and exc.cause is orig.cause and exc.context is orig.context


def prep_reraise_star(tx: InstructionTranslator, orig: Variable, excs: Variable) -> Variable:
    """PREP_RERAISE_STAR: what the ``try``/``except*`` statement raises (None: nothing)."""
    if not isinstance(excs, ListVariable) or not isinstance(orig, ExceptionVariable):
        raise Unsupported("except* over a value the trace does not know", "not modelled")
    grouped = issubclass(orig.cls, BaseExceptionGroup)  # else a naked exception: nothing is compared
    flags = [ConstantVariable(grouped and not is_none_constant(exc) and _same_metadata(exc, orig)) for exc in excs.items]
    prep = _functions.UserFunctionVariable(polyfills.exceptions.prep_reraise_star)
    return prep.call(tx, [orig, excs, TupleVariable(flags)], {})
