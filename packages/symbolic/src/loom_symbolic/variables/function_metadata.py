"""The function-type attributes a program may assign (``fn.__name__ = ...``, as ``functools.update_wrapper`` and
``functools.total_ordering`` do), and the check CPython makes of each value: shared by functions made while
tracing (:mod:`.nested_functions`) and real ones (:mod:`.functions`)."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .base import Variable


def _is_str(value: Variable) -> bool:
    return value.is_python_constant() and isinstance(value.as_python_constant(), str)


def _is_dict(value: Variable) -> bool:
    from .containers import DictVariable  # containers import functions, which import this table

    return isinstance(value, DictVariable) and value.python_type() is dict


def _is_tuple(value: Variable) -> bool:
    from .containers import TupleVariable

    return isinstance(value, TupleVariable) or (value.is_python_constant() and isinstance(value.as_python_constant(), tuple))


#: Function-type attribute → the check CPython makes of the value assigned (None: any value).
ASSIGNABLE: dict[str, Any] = {
    "__name__": _is_str, "__qualname__": _is_str, "__module__": None, "__doc__": None, "__annotations__": _is_dict,
    "__type_params__": lambda value: hasattr(types.FunctionType, "__type_params__") and _is_tuple(value),
}
