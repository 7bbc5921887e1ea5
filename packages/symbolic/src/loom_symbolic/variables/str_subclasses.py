"""Instances of a str subclass made while tracing (``class Tag(str)``, maybe with a ``__new__`` calling
``super().__new__(cls, text)``, after CPython's string_tests run on subclasses): an object of the class, its
attributes and Python methods an object's, whose text is known.

What ``str`` itself does with one (its methods, operators, ``len``, comparison, hashing, slicing) reads only
the text, so it is folded on the text, giving a plain ``str`` as CPython does; a method the class (or a base
between it and ``str``) overrides in Python is inlined instead. ``str.__format__`` with an empty spec is
``str(obj)``, which a Python ``__str__`` answers. Anything else the class inherits from ``str`` is not
modelled (a graph break).
"""

from __future__ import annotations

import operator
import re
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from . import operator_semantics as _operators
from .attributes import class_attribute
from .builtins import builtin
from .constant import ConstantVariable
from .new_objects import BASE_MAKERS
from .text import builtin_repr, builtin_str
from .value_subclasses import ValueSubclassVariable, subclass_passed_to_new

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: ``str``'s special methods whose answer depends only on the text (``__str__`` of a subclass instance is
#: a plain copy of its text; ``__format__`` and ``__reduce_ex__`` are not among them: they see the object).
_TEXT_DUNDERS = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__hash__", "__len__", "__getitem__",
    "__add__", "__mul__", "__rmul__", "__mod__", "__contains__", "__iter__", "__repr__", "__str__",
    "__sizeof__", "__getnewargs__",
})


class StrSubclassVariable(ValueSubclassVariable):
    """An instance of a str subclass made while tracing: ``value`` is its text as a str."""

    base = str

    def reads_only_value(self, name: str) -> bool:
        return name in _TEXT_DUNDERS or (not name.startswith("_") and callable(getattr(str, name, None)))

    def call_builtin_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                            kwargs: dict[str, Variable]) -> Variable:
        if name == "__format__":
            return self._str_format(tx, args, kwargs)
        return super().call_builtin_method(tx, name, args, kwargs)

    def builtin_text(self, dunder: str) -> Variable | None:
        """``str(obj)``/``repr(obj)`` where the class keeps str's ``__str__``/``__repr__``: from the text."""
        if class_attribute(self.cls, dunder) is not getattr(str, dunder):
            return None
        return ConstantVariable(self.value if dunder == "__str__" else repr(self.value))

    def is_subclass_instance(self) -> bool:
        return True  # a __getitem__ the class writes in Python is inlined, not str's

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        return self.call_builtin_method(tx, "__getitem__", [index], {})

    def iterate(self, tx: InstructionTranslator) -> Variable:
        if class_attribute(self.cls, "__iter__") is str.__iter__:
            return tx.iterate(ConstantVariable(self.value))
        return super().iterate(tx)

    def operator(self, tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
        """``template % obj`` formats the object by its ``str()`` or ``repr()``, which the class may write."""
        if right is self and _operators.INPLACE.get(op, op) is operator.mod:
            return _formatted_in(tx, left, self)
        return super().operator(tx, op, left, right)

    def _str_format(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``str.__format__(obj, spec)``: ``str(obj)`` for an empty spec, else the text formatted."""
        if kwargs or len(args) != 1 or not args[0].is_python_constant():
            raise Unsupported(f"str.__format__ of {self.describe()}", "a format spec known only at run time")
        spec = args[0].as_python_constant()
        if spec == "":
            return text_of(tx, self)
        return ConstantVariable(self.value).call_method(tx, "__format__", args, kwargs)


def text_of(tx: InstructionTranslator, value: StrSubclassVariable) -> Variable:
    """``str(value)``: its class's Python ``__str__`` inlined, else a plain copy of its text."""
    method = class_attribute(value.cls, "__str__")
    if method is str.__str__:
        return ConstantVariable(value.value)
    result = value.call_method(tx, "__str__", [], {})
    if not (result.is_python_constant() and isinstance(result.as_python_constant(), str)):
        message = f"__str__ returned non-string (type {result.python_type().__name__})"
        raise UserError("str()", message, exc_type=TypeError, exc_args=(message,))
    return result


#: One ``%`` conversion: flags, width and precision given in the template (no ``*``, no ``(key)``), then its type.
_CONVERSION = re.compile(r"%([-+ #0]*\d*(?:\.\d*)?)(.)", re.DOTALL)


class _Shown:
    """What ``%s``/``%r``/``%a`` see of an instance: the texts its ``str()`` and ``repr()`` gave in the trace."""

    def __init__(self, shown: str, represented: str) -> None:
        self.shown, self.represented = shown, represented

    def __str__(self) -> str:
        return self.shown

    def __repr__(self) -> str:
        return self.represented


def _formatted_in(tx: InstructionTranslator, template: Variable, value: StrSubclassVariable) -> Variable | None:
    """``template % value``: a constant template with one ``%s``, ``%r`` or ``%a`` (and any ``%%``) takes the
    instance's ``str()``/``repr()``, each traced once as CPython calls it. Other templates (another conversion,
    none, or more than one) raise errors that name the class: left to CPython."""
    text = template.as_python_constant() if template.is_python_constant() else None
    if type(text) is not str:
        return None
    conversions = [kind for _, kind in _CONVERSION.findall(text) if kind != "%"]
    if len(conversions) != 1 or conversions[0] not in "sra" or text.count("%") != 2 * text.count("%%") + 1:
        return None
    shown = builtin_str(tx, [value], {}) if conversions[0] == "s" else ConstantVariable("")
    represented = builtin_repr(tx, [value], {}) if conversions[0] != "s" else ConstantVariable("")
    if shown is None or represented is None:
        return None
    return ConstantVariable(text % _Shown(shown.as_python_constant(), represented.as_python_constant()))


def _made_text(tx: InstructionTranslator, cls: type, args: list[Variable], kwargs: dict[str, Variable]) -> str:
    """The text ``str.__new__(cls, *args, **kwargs)`` gives, for arguments known while tracing."""
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        raise Unsupported(f"creating a {cls.__qualname__} object", "its text is known only at run time")
    try:
        return str(*(a.as_python_constant() for a in args), **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"{cls.__name__}()", str(exc), exc_type=type(exc), exc_args=exc.args) from exc


def new_str_subclass(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
                     kwargs: dict[str, Variable]) -> StrSubclassVariable:
    """``cls(...)`` for a str subclass that keeps ``str.__new__``: its ``__init__`` runs after."""
    return StrSubclassVariable(cls, cls_source, _made_text(tx, cls, args, kwargs))


BASE_MAKERS[str] = new_str_subclass


@builtin(str.__new__)
def builtin_str_new(tx, args, kwargs):
    """``str.__new__(cls, text)``: what a subclass's ``__new__`` reaches through ``super()``."""
    cls = subclass_passed_to_new(args, str)
    if cls is None:
        return None
    return StrSubclassVariable(cls, args[0].source, _made_text(tx, cls, args[1:], kwargs))
