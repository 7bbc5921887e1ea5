"""``d.__repr__()``, ``dict.__repr__(d)``, ``l.__str__()``: a container's own text methods called by name, the same
as ``repr(d)`` / ``str(d)`` (which the builtins model), for dicts, lists, tuples and sets."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING

from ..errors import Unsupported
from .attributes import class_attribute
from .builtins import call_builtin
from .container_tables import DICT_METHODS, LIST_METHODS, SEQUENCE_METHODS, SET_METHODS

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _text_method(name: str, builtin: type):
    def method(tx: InstructionTranslator, container: Variable, args: list[Variable],
               kwargs: dict[str, Variable]) -> Variable:
        if args or kwargs:
            raise Unsupported(f"{name} of {container.describe()} with arguments", "CPython's TypeError, natively")
        if isinstance(class_attribute(container.python_type(), name), types.FunctionType):
            # ``dict.__repr__(obj)`` of a subclass writing its own: the builtin's, which repr() would not reach
            raise Unsupported(f"the builtin {name} of {container.describe()}", "its class writes its own")
        return call_builtin(tx, builtin, [container], {})

    return method


for _table in (DICT_METHODS, LIST_METHODS, SEQUENCE_METHODS, SET_METHODS):
    _table.setdefault("__repr__", _text_method("__repr__", repr))
    _table.setdefault("__str__", _text_method("__str__", str))
