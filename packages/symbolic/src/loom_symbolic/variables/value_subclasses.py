"""Instances of a subclass of a builtin value type (``int``, ``str``) made while tracing: an object of the class,
its attributes and Python methods an object's, whose builtin value is known.

The builtin's own methods that read only the value are folded on the value (CPython gives a plain ``int`` or
``str`` back); a special method the class (or a base between it and the builtin) writes in Python is inlined
instead. :mod:`.int_subclasses` and :mod:`.str_subclasses` say which methods read only the value and how the
value is made.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, ClassVar

from ..errors import Unsupported
from . import operator_semantics as _operators
from .attributes import class_attribute
from .builtins import BuiltinVariable
from .constant import ConstantVariable
from .new_objects import NewObjectVariable
from .real_objects import ClassVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


class ValueSubclassVariable(NewObjectVariable):
    """An instance of a subclass of ``base`` made while tracing: ``value`` is its value as a plain ``base``."""

    #: the builtin type the class derives from
    base: ClassVar[type]

    def __init__(self, cls: type, cls_source: Any, value: Any) -> None:
        super().__init__(cls, cls_source)
        self.value = value

    def reads_only_value(self, name: str) -> bool:
        """Whether ``base``'s method ``name`` depends on nothing of the object but its value."""
        raise NotImplementedError

    def call_builtin_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                            kwargs: dict[str, Variable]) -> Variable:
        """``base``'s own method ``name`` (what the class inherits, or ``super()`` reaches), on the value."""
        if not self.reads_only_value(name):
            raise Unsupported(f"{self.base.__name__}.{name} of {self.describe()}",
                              "it sees more of the object than its value")
        return ConstantVariable(self.value).call_method(tx, name, args, kwargs)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        if name.startswith("__") and class_attribute(self.cls, name) is getattr(self.base, name, None):
            return self.call_builtin_method(tx, name, args, kwargs)
        return super().call_method(tx, name, args, kwargs)

    def operator(self, tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
        """``left op right`` where the builtin's own operator answers (no Python special method on either side):
        the operator on the values; None where it reads more than the value and is left to CPython."""
        plain = [ConstantVariable(v.value) if isinstance(v, ValueSubclassVariable) else v for v in (left, right)]
        return _operators.binary(tx, _operators.INPLACE.get(op, op), *plain)

    def reconstruct(self, codegen: PyCodegen) -> None:
        """``base.__new__(cls, value)`` (no ``__new__`` or ``__init__`` of the class runs again), then its
        attributes."""
        codegen.load_callable(self.base.__new__)
        codegen.load_const(self.cls)
        codegen.load_const(self.value)
        codegen.call(2)
        self.reconstruct_attributes(codegen)


def _value_subclass_operator(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``left op right`` with a value-subclass instance on a side and no special method for ``op`` in Python on
    either: the builtin's own operator, on the values (a tensor's operator takes the value as any int)."""
    instance = next((v for v in (right, left) if isinstance(v, ValueSubclassVariable)), None)
    if instance is None:
        return None
    names = _operators.DUNDERS.get(_operators.INPLACE.get(op, op))
    if names is None:
        return None
    inplace = (f"__{op.__name__}__",) if op in _operators.INPLACE else ()
    for side in (left, right):
        if any(_operators.has_python_special(side, name) for name in (*names, *inplace)):
            if not inplace and _builtin_answers_first(op, left, right, names):
                break  # `Count(2) + 1` of a class writing only __radd__: int's own __add__ answers before
            return None  # Python's own dispatch, which inlines it
    return instance.operator(tx, op, left, right)


def _builtin_answers_first(op: Any, left: Variable, right: Variable, names: tuple[str, str]) -> bool:
    """Whether the special methods Python asks, in its order, reach a builtin's own one (on known values) that
    answers (not NotImplemented) before any written in Python: then no method in Python is asked."""
    attempts = [(left, names[0], right), (right, names[1], left)]
    if _operators.reflection_first(op, left, right, names[1]):
        attempts.reverse()
    for receiver, name, other in attempts:
        if _operators.has_python_special(receiver, name):
            return False
        values = [_known_value(v) for v in (receiver, other)]
        method = getattr(type(values[0]), name, None)
        if any(v is _UNKNOWN for v in values) or method is None:
            return False
        try:
            if method(*values) is not NotImplemented:
                return True
        except Exception:  # the operator raises (a ZeroDivisionError): left to the dispatch that raises it
            return False
    return False


_UNKNOWN = object()


def _known_value(value: Variable) -> Any:
    if isinstance(value, ValueSubclassVariable):
        return value.value
    return value.as_python_constant() if value.is_python_constant() else _UNKNOWN


_operators.CONTAINER_OPERATORS.append(_value_subclass_operator)


def subclass_passed_to_new(args: list[Variable], base: type) -> type | None:
    """The class ``base.__new__(cls, ...)`` is asked to make, when it is a plain Python subclass of ``base``
    (no metaclass, no other builtin layout in its bases, such as ``bool`` for ``int``); else None (natively)."""
    if not args or not isinstance(args[0], (ClassVariable, BuiltinVariable)):
        return None
    cls = args[0].value
    if not isinstance(cls, type) or type(cls) is not type or not issubclass(cls, base) or cls is base:
        return None
    if any(klass.__module__ == "builtins" and klass not in (base, object) for klass in cls.__mro__):
        return None
    return cls
