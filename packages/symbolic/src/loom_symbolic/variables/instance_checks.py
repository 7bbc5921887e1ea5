"""``isinstance(obj, cls)`` where ``cls``'s metaclass writes ``__instancecheck__`` in Python (a user's metaclass):
CPython calls it (after its exact-type fast path), so the trace inlines it with the class and the object, and
its truth is the answer; what it raises is the program's. ``abc.ABCMeta``'s, which only hands over to ``_abc``,
keeps the subclass answer of the handler this one wraps, as do torch's own (``nn.Parameter``'s), every class
whose metaclass does not write one, and a runtime-checkable ``typing`` Protocol of methods only (whose check the class's methods decide). A
runtime-checkable Protocol with data members is checked on the instance as typing does (its subclass answer
was a TypeError eager does not raise); one that is not runtime-checkable raises eager's TypeError. Matching a class pattern
(``case P():``) asks the same.
"""

from __future__ import annotations

import abc
import types
import typing
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from .attributes import _MISSING, class_attribute
from .builtins import HANDLERS, builtin, call_builtin
from .constant import ConstantVariable
from .registry import wrap, wrap_constant_like

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_subclass_answer = HANDLERS[isinstance]
#: packages whose metaclass checks the wrapped handlers answer (torch's flagged tensor classes, typing's
#: Protocols: ``_written_check`` takes those apart first)
_LIBRARY_CHECKS = frozenset({"torch", "typing"})


def _protocol_checked_by_methods(cls: type) -> bool:
    """Whether ``isinstance(obj, cls)`` of a Protocol is a runtime check of method names only."""
    if not getattr(cls, "_is_runtime_protocol", False):
        return False
    attrs = getattr(cls, "__protocol_attrs__", None) or typing._get_protocol_attrs(cls)
    return all(callable(getattr(cls, attr, None)) for attr in attrs)


def _written_check(cls: object) -> Any:
    """The ``__instancecheck__`` written in Python on ``cls``'s metaclass, if any (not ABCMeta's nor typing's)."""
    if not isinstance(cls, type) or type(cls) is type:
        return None
    if isinstance(cls, typing._ProtocolMeta) and getattr(cls, "_is_protocol", False):
        if _protocol_checked_by_methods(cls):
            return None
        return _protocol_members_check
    return metaclass_check(cls, "__instancecheck__")


def metaclass_check(cls: type, name: str) -> Any:
    """The ``__instancecheck__`` or ``__subclasscheck__`` (``name``) written in Python on ``cls``'s metaclass,
    which CPython calls: None for ``type``'s, ``abc.ABCMeta``'s (it only hands over to ``_abc``), typing's and
    torch's own (Parameter's, Buffer's), whose answers the handlers beside them know."""
    check = class_attribute(type(cls), name)
    if not isinstance(check, types.FunctionType) or check is getattr(abc.ABCMeta, name):
        return None
    if (check.__module__ or "").partition(".")[0] in _LIBRARY_CHECKS:
        return None
    return check


def _protocol_members_check(tx: InstructionTranslator, cls: type, value: Variable) -> bool:
    """``isinstance(value, cls)`` of a runtime-checkable Protocol with data members, as typing answers it: a
    nominal subclass, or each protocol member present on the instance (a method member not None). Asked only
    where a plain read finds the members (no ``__getattr__``, ``__getattribute__`` or descriptor of the class,
    which 3.11's ``hasattr`` and 3.12's ``getattr_static`` see differently, and no class registered with it);
    anything else is a break. A Protocol that is not runtime-checkable raises eager's TypeError."""
    what = f"isinstance() with Protocol {cls.__qualname__}"
    if not getattr(cls, "_is_runtime_protocol", False):
        try:  # eager's TypeError, whatever the instance: its words taken from the real check
            isinstance(None, cls)
        except TypeError as exc:
            raise UserError(what, str(exc), exc_type=TypeError, exc_args=exc.args) from None
        raise Unsupported(what, "a Protocol typing lets this caller check: not modelled")
    owner = value.python_type()
    if cls in owner.__mro__:
        return True
    if abc._get_dump(cls)[0] or class_attribute(owner, "__getattr__") is not _MISSING \
            or isinstance(class_attribute(owner, "__getattribute__"), types.FunctionType):
        raise Unsupported(what, "a registered class, or attributes the instance computes: not modelled")
    for attr in getattr(cls, "__protocol_attrs__", None) or typing._get_protocol_attrs(cls):
        static = class_attribute(owner, attr)
        if static is not _MISSING and hasattr(type(static), "__get__") and not isinstance(static, types.FunctionType):
            raise Unsupported(what, f"member {attr!r} is a descriptor of {owner.__name__}: not modelled")
        if not call_builtin(tx, hasattr, [value, ConstantVariable(attr)], {}).as_python_constant():
            return False
        if callable(getattr(cls, attr, None)):  # a method member set to None on the instance does not count
            member = value.var_getattr(tx, attr)
            if member.is_python_constant() and member.as_python_constant() is None:
                return False
    return True


@builtin(isinstance)
def isinstance_through_metaclass(tx: InstructionTranslator, args: list[Variable],
                                 kwargs: dict[str, Variable]) -> Variable | None:
    if len(args) != 2 or kwargs:
        return _subclass_answer(tx, args, kwargs)
    if args[1].is_python_constant():
        # a real object too: what a written check reads may change between calls, so it is traced (guarded)
        cls = args[1].as_python_constant()
        if type(cls) is tuple and any(_written_check(member) is not None for member in cls):
            # CPython asks each member in turn (each with its own fast path and metaclass check)
            for member in cls:
                answer = isinstance_through_metaclass(tx, [args[0], wrap_constant_like(member)], {})
                if answer.as_python_constant():
                    return ConstantVariable(True)
            return ConstantVariable(False)
        check = _written_check(cls)
        if check is not None:
            if args[0].python_type() is cls:  # CPython's fast path: the exact type never asks the metaclass
                return ConstantVariable(True)
            if check is _protocol_members_check:
                return ConstantVariable(check(tx, cls, args[0]))
            answer = wrap(tx, check, None).call(tx, [args[1], args[0]], {})
            return ConstantVariable(bool(answer.truth(tx)))
    return _subclass_answer(tx, args, kwargs)
