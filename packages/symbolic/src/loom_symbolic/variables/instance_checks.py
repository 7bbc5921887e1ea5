"""``isinstance(obj, cls)`` where ``cls``'s metaclass writes ``__instancecheck__`` in Python (a user's metaclass):
CPython calls it (after its exact-type fast path), so the trace inlines it with the class and the object, and
its truth is the answer; what it raises is the program's. ``abc.ABCMeta``'s, which only hands over to ``_abc``,
keeps the subclass answer of the handler this one wraps, as do torch's own (``nn.Parameter``'s), every class
whose metaclass does not write one, and a runtime-checkable ``typing`` Protocol of methods only (whose check the class's methods decide). A
Protocol that is not runtime-checkable (eager's TypeError) or has data members (read on the instance) is a
break: its subclass answer would be a TypeError eager does not raise. Matching a class pattern (``case P():``)
asks the same.
"""

from __future__ import annotations

import abc
import types
import typing
from typing import TYPE_CHECKING

from ..errors import Unsupported
from .attributes import class_attribute
from .builtins import HANDLERS, builtin
from .constant import ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_subclass_answer = HANDLERS[isinstance]
#: packages whose metaclass checks the wrapped handler answers (torch's flagged tensor classes)
_LIBRARY_CHECKS = frozenset({"torch"})


def _protocol_checked_by_methods(cls: type) -> bool:
    """Whether ``isinstance(obj, cls)`` of a Protocol is a runtime check of method names only."""
    if not getattr(cls, "_is_runtime_protocol", False):
        return False
    attrs = getattr(cls, "__protocol_attrs__", None) or typing._get_protocol_attrs(cls)
    return all(callable(getattr(cls, attr, None)) for attr in attrs)


def _written_check(cls: object) -> types.FunctionType | None:
    """The ``__instancecheck__`` written in Python on ``cls``'s metaclass, if any (not ABCMeta's nor typing's)."""
    if not isinstance(cls, type) or type(cls) is type:
        return None
    if isinstance(cls, typing._ProtocolMeta) and getattr(cls, "_is_protocol", False):
        if _protocol_checked_by_methods(cls):
            return None
        raise Unsupported(f"isinstance() with Protocol {cls.__qualname__}",
                          "not runtime-checkable, or checking data members on the instance: not modelled")
    check = class_attribute(type(cls), "__instancecheck__")
    if not isinstance(check, types.FunctionType) or check is abc.ABCMeta.__instancecheck__:
        return None
    if (check.__module__ or "").partition(".")[0] in _LIBRARY_CHECKS:
        return None  # torch's own (Parameter's, Buffer's): the handler below knows those classes
    return check


@builtin(isinstance)
def isinstance_through_metaclass(tx: InstructionTranslator, args: list[Variable],
                                 kwargs: dict[str, Variable]) -> Variable | None:
    if len(args) != 2 or kwargs:
        return _subclass_answer(tx, args, kwargs)
    real = getattr(args[0], "wraps_real_object", False) and type(getattr(args[0], "value", None)) is not type
    if not real and args[1].is_python_constant():  # a real object is asked as it is
        cls = args[1].as_python_constant()
        check = _written_check(cls)
        if check is not None:
            if args[0].python_type() is cls:  # CPython's fast path: the exact type never asks the metaclass
                return ConstantVariable(True)
            answer = wrap(tx, check, None).call(tx, [args[1], args[0]], {})
            return ConstantVariable(bool(answer.truth(tx)))
    return _subclass_answer(tx, args, kwargs)
