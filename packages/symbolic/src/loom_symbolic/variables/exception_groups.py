"""Exception groups (PEP 654) made or read while tracing.

``BaseExceptionGroup(message, excs)`` checks its arguments in C and may hand back another class than the
one called (``BaseExceptionGroup`` of plain exceptions is an ``ExceptionGroup``): :func:`make_group`
does what ``BaseExceptionGroup.__new__`` does, raising its errors as the trace's own exceptions, and
keeps the members as construction copied them, for ``exceptions``. ``split``, ``subgroup`` and
``derive`` are the Python versions in ``polyfills/exceptions.py``, found like any polyfilled method.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loom_guards import Attr

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable
from .containers import ListVariable, TupleVariable
from .exception_values import KINDS, ExceptionVariable, SymbolicException, raised
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: what an exception group answers from itself (C-level attributes, read off the real one from the frame)
_GROUP_ATTRIBUTES = frozenset({"message", "exceptions"})


class ExceptionGroupVariable(ExceptionVariable):
    """A ``BaseExceptionGroup`` (or subclass). ``members``: the exceptions construction copied out of
    its second argument (None for a group from the frame, whose ``exceptions`` is read there)."""

    def __init__(self, cls: type[BaseException], args: list[Variable] | None,
                 members: list[Variable] | None = None) -> None:
        super().__init__(cls, args)
        self.members = members

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _GROUP_ATTRIBUTES and name not in self.attrs:
            if self.members is not None:
                return self.args[0] if name == "message" else TupleVariable(list(self.members))
            if self.real is not None:
                return wrap(tx, getattr(self.real, name), Attr(self.source, name))
        return super().var_getattr(tx, name)

    def _rebuild(self, codegen: PyCodegen) -> None:
        # cls(message, excs) again: right while excs still holds the members the group copied
        if self.members is not None and _items(self.args[1]) != self.members:
            raise Unsupported(f"a {self.cls.__name__} escaping the compiled function",
                              "the sequence it was made from has changed since")
        super()._rebuild(codegen)


def _items(value: Variable) -> list[Variable] | None:
    if isinstance(value, (TupleVariable, ListVariable)):
        return list(value.items)
    return None


def _fail(tx: InstructionTranslator, kind: type[BaseException], message: str) -> SymbolicException:
    return SymbolicException(raised(tx, ExceptionVariable(kind, [ConstantVariable(message)])))


def _is_exception(item: Variable, base: type) -> bool:
    """Whether ``item`` is an instance of ``base``, from its type as the trace knows it."""
    kind = item.python_type()  # Unsupported where the trace does not know it
    return isinstance(kind, type) and issubclass(kind, base)


def make_group(tx: InstructionTranslator, cls: type, args: list[Variable],
               kwargs: dict[str, Variable]) -> ExceptionGroupVariable:
    """``cls(message, excs)`` for an exception group class, as ``BaseExceptionGroup.__new__`` checks
    and picks its class; a class customising construction is not modelled."""
    if tx is None or kwargs or cls.__init__ is not BaseExceptionGroup.__init__ \
            or cls.__new__ is not BaseExceptionGroup.__new__:
        raise Unsupported(f"creating a {cls.__name__}", "keyword arguments or a class customising construction")
    if len(args) != 2:
        raise _fail(tx, TypeError, f"BaseExceptionGroup.__new__() takes exactly 2 arguments ({len(args)} given)")
    message, excs = args
    if not message.is_python_constant():
        raise Unsupported(f"a {cls.__name__}'s message that is {message.describe()}", "not known while tracing")
    if not isinstance(message.as_python_constant(), str):
        kind = type(message.as_python_constant()).__name__
        raise _fail(tx, TypeError, f"BaseExceptionGroup.__new__() argument 1 must be str, not {kind}")
    members = _members(tx, excs)
    if not members:
        raise _fail(tx, ValueError, "second argument (exceptions) must be a non-empty sequence")
    for index, item in enumerate(members):
        if not _is_exception(item, BaseException):
            raise _fail(tx, ValueError, f"Item {index} of second argument (exceptions) is not an exception")
    only_exceptions = all(_is_exception(item, Exception) for item in members)
    if cls is BaseExceptionGroup and only_exceptions:
        cls = ExceptionGroup
    elif not only_exceptions and issubclass(cls, Exception):
        where = "an ExceptionGroup" if cls is ExceptionGroup else repr(cls.__name__)
        raise _fail(tx, TypeError, f"Cannot nest BaseExceptions in {where}")
    return ExceptionGroupVariable(cls, [message, excs], members)


def _members(tx: InstructionTranslator, excs: Variable) -> list[Variable]:
    """The items of the second argument (a list or tuple); CPython's TypeError for a known value that is
    no sequence at all."""
    items = _items(excs)
    if items is not None:
        return items
    if excs.is_python_constant():
        value = excs.as_python_constant()
        if isinstance(value, (tuple, list)):
            return [ConstantVariable(item) for item in value]
        if value is None or isinstance(value, (int, float, complex, set, frozenset, dict)):
            raise _fail(tx, TypeError, "second argument (exceptions) must be a sequence")
    raise Unsupported(f"an exception group of {excs.describe()}", "only a list or tuple of exceptions is modelled")


KINDS[BaseExceptionGroup] = (ExceptionGroupVariable, make_group)
