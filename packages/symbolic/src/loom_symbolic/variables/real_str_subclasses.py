"""A str subclass instance the trace reads but did not make (``torch.__version__``, a ``TorchVersion``; an
argument of the user's ``class Tag(str)``), where C code reads its text: iterating it with str's own
``__iter__`` (``frozenset.issuperset(version)``) gives its characters, and a compiled pattern matched against
it (``pattern.fullmatch(version)``, what ``packaging.version.parse`` runs) is folded on the very object (the
match's ``string`` is that object, as in eager). The text of a str never changes, so the object is guarded by
identity where it comes from the frame (a trusted library's constant has no guard)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from . import iterators as _iterators
from .attributes import class_attribute
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


def real_text_object(tx: InstructionTranslator, value: Variable) -> Any:
    """The real str subclass instance ``value`` wraps (guarded by identity), or None."""
    real = getattr(value, "value", None)
    if not getattr(value, "wraps_real_object", False) or type(real) is str or not isinstance(real, str):
        return None
    if getattr(value, "source", None) is not None:
        tx.output.guards.add("identity", value.source, real)
    return real


def _iterate_text(tx: InstructionTranslator, obj: Variable, cls: type) -> Any:
    if not issubclass(cls, str) or class_attribute(cls, "__iter__") is not str.__iter__:
        return None
    real = real_text_object(tx, obj)
    if real is None:
        return None
    return tx.iterate(ConstantVariable(str.__str__(real)))


_iterators.ITERATION_FALLBACKS.append(_iterate_text)
