"""Calls of builtin types that make no new state, modelled in the trace: ``types.MethodType(fn, obj)`` binds
``fn`` to ``obj`` as ``obj.method`` would, and ``type(None)()`` is ``None``."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from ..errors import UserError
from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable
from .methods import BoundMethodVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


@builtin(types.MethodType)
def bind_method(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``types.MethodType(function, instance)``: a bound method of a Python function (a C callable, which
    a method object would call through its own ``__call__``, is left to the real call)."""
    if kwargs or len(args) != 2:
        return None
    function, instance = args
    if instance.is_python_constant() and instance.as_python_constant() is None:
        raise UserError("types.MethodType(fn, None)", "instance must not be None", exc_type=TypeError,
                        exc_args=("instance must not be None",))
    if function.python_type() is not types.FunctionType:
        return None
    return BoundMethodVariable(function, instance)


@builtin(type(None))
def make_none(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``type(None)()``: the one ``None`` (with arguments CPython raises; left to the real call)."""
    return ConstantVariable(None) if not args and not kwargs else None
