"""The names of a real class and its bases (``polyfills.introspection.class_names``, what ``dir()`` of an
object or a class merges): folded to a constant list while tracing.

A class's ``__dict__`` is a mappingproxy the trace does not iterate; the names are read now instead, and the
dict of every user class reached (a library's or a builtin class's is taken as fixed, as for attribute
lookups: :mod:`.class_lookups`) is guarded to hold the same names, so ``Cls.new = 1`` or ``del Cls.attr``
before a later call recompiles; the trace's own stores and deletions on them are counted in. A class made while tracing is not real yet: a graph break naming ``dir()``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from loom_guards import Attr, Const

from ..errors import Unsupported
from ..object_dicts import DELETED
from ..polyfills.introspection import class_names
from .builtins import FOLDED_LIBRARY_FUNCTIONS, builtin
from .class_lookups import user_class
from .constant import ConstantVariable
from .sequences import ListVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def _names(tx: InstructionTranslator, cls: type, seen: set[type]) -> set[str]:
    """The names of ``cls`` and its bases as the trace has them: the real dicts' (each user class's guarded),
    with the trace's own stores added and deletions taken out."""
    if cls in seen:
        return set()
    seen.add(cls)
    names = set(cls.__dict__)
    if user_class(cls):
        tx.output.guards.add("dict_keys", Attr(Const(cls), "__dict__"), list(cls.__dict__))
    for name, value in tx.output.side_effects.attr_overlay.get(id(cls), {}).items():
        if value is DELETED:
            names.discard(name)
        else:
            names.add(name)
    for base in cls.__bases__:
        names |= _names(tx, base, seen)
    return names


@builtin(class_names)
def _class_names(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    cls = getattr(args[0], "value", None) if len(args) == 1 and not kwargs else None
    if not getattr(args[0], "wraps_real_object", False) or not isinstance(cls, type):
        raise Unsupported(f"dir() of {args[0].describe() if args else 'nothing'}",
                          "the names of a class made while tracing are not modelled")
    return ListVariable([ConstantVariable(name) for name in _names(tx, cls, set())])


FOLDED_LIBRARY_FUNCTIONS.add(class_names)
