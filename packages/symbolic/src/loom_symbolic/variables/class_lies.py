"""Classes whose attribute reads answer something other than the plain lookup: a class defining a property (or
another descriptor) named ``__class__``, which ``isinstance`` consults when the real type does not match; and a
class attribute shadowed, on reads through the class, by a data descriptor of its metaclass (``cls.__class__`` is
the metaclass, not the class's own ``__class__`` entry)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import Unsupported

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

_OBJECT_CLASS = vars(object)["__class__"]


def metaclass_data_descriptor(meta: type, name: str) -> bool:
    """Whether ``name`` is a data descriptor of metaclass ``meta`` (which then answers ``cls.name``)."""
    for klass in meta.__mro__:
        if name in vars(klass):
            kind = type(vars(klass)[name])
            return hasattr(kind, "__set__") or hasattr(kind, "__delete__")
    return False


def own_class_attribute(cls: type) -> bool:
    """Whether ``cls`` (or a base before ``object``) defines ``__class__`` itself (a property that lies)."""
    for klass in cls.__mro__:
        if "__class__" in vars(klass):
            return vars(klass)["__class__"] is not _OBJECT_CLASS
    return False


def isinstance_through_class_attribute(tx: InstructionTranslator, value: Variable, classes: Any) -> bool | None:
    """``isinstance(value, classes)`` where the real type did not match: CPython then asks ``value.__class__``,
    which a class defining ``__class__`` answers; None where it does not (the answer stays False)."""
    try:
        cls = value.python_type()
    except Unsupported:
        return None
    if not isinstance(cls, type) or not own_class_attribute(cls):
        return None
    reported = value.var_getattr(tx, "__class__")
    if not reported.is_python_constant() or not isinstance(reported.as_python_constant(), type):
        raise Unsupported("isinstance() of an object whose class defines __class__", "its value is not a known class")
    return issubclass(reported.as_python_constant(), classes)
