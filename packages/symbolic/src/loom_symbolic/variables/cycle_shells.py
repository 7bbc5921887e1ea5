"""Rebuilding a value made in the trace that refers to itself (``d['self'] = d``, ``l.append(l)``,
``o.me = o``) after a graph break: the code generator first creates it empty (the *shell*), keeps it in a
temporary that every reference inside loads, then fills it.

``SHELLS`` maps a variable type to ``(can_shell, shell, fill)``: ``can_shell(value)`` says whether this
value can be made empty first, ``shell(value, codegen)`` pushes the empty object, and ``fill(value,
codegen)`` fills the object on top of the stack and leaves it there. A value with no entry (or one whose
``can_shell`` is false) makes the break a clean one with a named reason instead.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from .containers import DictVariable, ListVariable
from .new_objects import NewObjectVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .base import Variable


def _plain(value: Any) -> bool:
    """A builtin list/dict (subclasses are rebuilt through their own ``__new__``: not modelled here)."""
    return value.cls in (list, dict) and not getattr(value, "attrs", None)


def _list_shell(value: ListVariable, codegen: PyCodegen) -> None:
    codegen.emit("BUILD_LIST", 0)


def _list_fill(value: ListVariable, codegen: PyCodegen) -> None:
    for item in value.items:
        codegen.reconstruct(item)
        codegen.emit("LIST_APPEND", 1)


def _dict_shell(value: DictVariable, codegen: PyCodegen) -> None:
    codegen.emit("BUILD_MAP", 0)


def _dict_fill(value: DictVariable, codegen: PyCodegen) -> None:
    for key, item in value.items.items():
        codegen.load_key(key)
        codegen.reconstruct(item)
        codegen.emit("MAP_ADD", 1)


def _object_can_shell(value: NewObjectVariable) -> bool:
    return value.stands_for is None  # one that stands for another object is made by a call


def _object_shell(value: NewObjectVariable, codegen: PyCodegen) -> None:
    codegen.load_callable(object.__new__)
    codegen.load_const(value.cls)
    codegen.call(1)


def _object_fill(value: NewObjectVariable, codegen: PyCodegen) -> None:
    value.reconstruct_attributes(codegen)


SHELLS: dict[type, tuple[Callable[[Any], bool], Callable[[Any, PyCodegen], None], Callable[[Any, PyCodegen], None]]] = {
    ListVariable: (_plain, _list_shell, _list_fill),
    DictVariable: (_plain, _dict_shell, _dict_fill),
    NewObjectVariable: (_object_can_shell, _object_shell, _object_fill),
}


def shell_for(value: Variable) -> tuple[Callable, Callable] | None:
    """``(shell, fill)`` for ``value`` when it can be created empty and filled afterwards, else ``None``."""
    entry = SHELLS.get(type(value))
    if entry is None or not entry[0](value):
        return None
    return entry[1], entry[2]
