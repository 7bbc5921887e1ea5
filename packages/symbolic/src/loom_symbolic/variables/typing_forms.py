"""Parametrised typing forms (``list[str]``, ``typing.List[int]``, ``int | None``) met while tracing.

They are immutable: their ``__origin__``, ``__args__`` and other attributes are folded on the real object
(``typing.get_origin``/``get_args``, ``torch.jit.isinstance``), as other frozen library objects are. A
``GenericAlias`` passes ``isinstance(alias, type)`` (it forwards ``__class__``), so without this rule it
would be taken for a class whose attributes come from its metaclass.
"""

from __future__ import annotations

import types
import typing
from typing import Any

from . import registry
from .constant import FrozenObjectVariable

#: Types of the parametrised forms: ``list[str]``, ``int | None``, and typing's own aliases.
_FORM_TYPES: tuple[type, ...] = (types.GenericAlias, types.UnionType, typing._BaseGenericAlias)  # type: ignore[attr-defined]


def is_typing_form(value: Any) -> bool:
    """Whether ``value`` is a parametrised typing form (by its real type, not the ``__class__`` it forwards)."""
    return issubclass(type(value), _FORM_TYPES)


def _wrap_typing_form(tx: Any, value: Any, source: Any) -> FrozenObjectVariable:
    if tx is not None and source is not None:
        tx.output.guards.add("identity", source, value)
    return FrozenObjectVariable(value, source)


# Before the builtin-callable (220) and class (240) rules, which a GenericAlias would otherwise match.
registry.add_rule(215, is_typing_form, _wrap_typing_form)
