"""``str()``, ``repr()`` and f-string text of objects whose class writes ``__str__``/``__repr__`` in Python.

The method is inlined and its result must be a string known while tracing. Registers the ``str`` and
``repr`` builtins (:func:`.builtins.builtin`); :func:`formatted_text` serves ``FORMAT_VALUE``.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import UserError
from .attributes import class_attribute
from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _user_text(tx: InstructionTranslator, value: Variable, dunder: str) -> Variable | None:
    """``str(obj)`` / ``repr(obj)`` of an object whose class defines the method in Python: inlined."""
    cls = value.python_type()
    if getattr(value, "stands_for", None) is not None:
        cls = value.cls  # deque's stand-in: its __repr__ is the real one's, in Python
    elif not _is_user_class(cls):
        return None
    method = class_attribute(cls, dunder)
    if dunder == "__str__" and method is object.__str__:
        dunder, method = "__repr__", class_attribute(cls, "__repr__")  # object.__str__ calls repr
    if not isinstance(method, types.FunctionType):
        return None
    result = value.call_method(tx, dunder, [], {})
    text = result.as_python_constant() if result.is_python_constant() else None
    if not isinstance(text, str):
        raise UserError(f"{dunder}()", f"{dunder} returned non-string (type {result.python_type().__name__})",
                        exc_type=TypeError)
    return ConstantVariable(text)


def formatted_text(tx: InstructionTranslator, value: Variable, convert: Any) -> Variable | None:
    """The text ``f"{value}"`` (``convert`` None), ``f"{value!s}"`` or ``f"{value!r}"`` gives for an
    object whose ``__str__``/``__repr__`` is Python code (traced), if ``__format__`` is object's (which
    formats ``str(value)``); None where that cannot be modelled."""
    if convert is repr:
        return _user_text(tx, value, "__repr__")
    if convert is str:
        return _user_text(tx, value, "__str__")
    if convert is not None:
        return None
    cls = value.cls if getattr(value, "stands_for", None) is not None else value.python_type()
    if class_attribute(cls, "__format__") is not object.__format__:
        return None
    return _user_text(tx, value, "__str__")


def _is_user_class(cls: type) -> bool:
    return bool(cls.__flags__ & (1 << 9)) and not issubclass(cls, (torch.Tensor, BaseException))  # a heap type


@builtin(str)
def builtin_str(tx, args, kwargs):
    return _user_text(tx, args[0], "__str__") if len(args) == 1 and not kwargs else None


@builtin(repr)
def builtin_repr(tx, args, kwargs):
    return _user_text(tx, args[0], "__repr__") if len(args) == 1 and not kwargs else None
