"""``types.new_class(name, bases, kwds, exec_body)`` inside a trace, with a constant name, class bases whose
metaclass is ``type`` and no keywords but ``metaclass=type``: ``type.__prepare__`` gives an empty dict, which
``exec_body`` fills (traced: a dict of the trace), and the class is made as ``type(name, bases, namespace)`` is
(:func:`.class_definitions.make_type`, once, while tracing). Its ``__module__``, where ``exec_body`` sets none,
is ``'types'``, as CPython finds it from the frame calling the metaclass (``types.new_class``'s own).
Anything else runs ``types.new_class``'s own code, traced.
"""

from __future__ import annotations

import inspect
import types
from typing import Any

from ..variables.base import Variable
from ..variables.builtins import FOLDED_LIBRARY_FUNCTIONS
from ..variables.builtins import HANDLERS as BUILTIN_HANDLERS
from ..variables.constant import ConstantVariable
from ..variables.functions import UserFunctionVariable
from ..variables.mappings import DictVariable
from ..variables.registry import wrap_constant_like

_SIGNATURE = inspect.signature(types.new_class)


def _plain(bound: dict[str, Variable]) -> tuple[str, tuple] | None:
    """The name and bases of a call this module makes, or None."""
    parts = [bound.get(k) for k in ("name", "bases", "kwds")]
    if not all(p is None or p.is_python_constant() for p in parts):
        return None
    name, bases, kwds = (None if p is None else p.as_python_constant() for p in parts)
    bases = () if bases is None else bases
    if type(name) is not str or type(bases) is not tuple or kwds not in (None, {}, {"metaclass": type}):
        return None
    if not all(isinstance(b, type) and type(b) is type for b in bases):
        return None  # a base with __mro_entries__ or another metaclass: new_class's own code
    return name, bases


#: ``class_definitions.make_type``, handed over by :func:`register`
_MAKE_TYPE: list[Any] = []


def new_class(tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    try:
        bound = _SIGNATURE.bind(*args, **kwargs).arguments
    except TypeError:
        bound = None
    plain = _plain(bound) if bound is not None else None
    if plain is None:
        return UserFunctionVariable(types.new_class).call(tx, args, kwargs)
    name, bases = plain
    namespace = DictVariable({})
    body = bound.get("exec_body")
    if body is not None and not (body.is_python_constant() and body.as_python_constant() is None):
        body.call(tx, [namespace], {})
    if "__module__" not in namespace.items:
        namespace.items["__module__"] = ConstantVariable("types")
    return _MAKE_TYPE[0](tx, [ConstantVariable(name), wrap_constant_like(bases), namespace], {})


def register(make_type: Any) -> None:
    """Answer ``types.new_class`` calls here, making the class with ``make_type``."""
    _MAKE_TYPE[:] = [make_type]
    BUILTIN_HANDLERS[types.new_class] = new_class
    FOLDED_LIBRARY_FUNCTIONS.add(types.new_class)  # a Python function: answered here, not inlined
