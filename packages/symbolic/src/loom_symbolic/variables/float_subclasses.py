"""Instances of a float subclass made while tracing (``class Meters(float)``, maybe with a ``__new__`` calling
``super().__new__(cls, v)``): an object of the class, its attributes and Python methods an object's, whose value
is known. As :mod:`.int_subclasses` does for ints: what ``float`` itself does with one (arithmetic, comparisons,
``is_integer``, ``hex``...) reads only the value and gives a plain float (or int, bool, tuple), so it is folded
on the value; a method the class overrides in Python is inlined; a torch operation takes the value. Hashing,
``__format__`` and ``float.fromhex`` (which calls the class) are not modelled (a graph break).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from .attributes import class_attribute
from .builtins import builtin
from .constant import ConstantVariable
from .new_objects import BASE_MAKERS
from .value_subclasses import ValueSubclassVariable, subclass_passed_to_new

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator

#: ``float``'s special methods whose answer depends only on the value.
_VALUE_DUNDERS = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__int__", "__float__", "__abs__",
    "__neg__", "__pos__", "__trunc__", "__floor__", "__ceil__", "__round__", "__repr__",
    *(f"__{prefix}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "divmod")
      for prefix in ("", "r")),
})


class FloatSubclassVariable(ValueSubclassVariable):
    """An instance of a float subclass made while tracing: ``value`` is its value as a float."""

    base = float

    #: ``-obj``, ``abs(obj)``: its call_method answers float's own special methods on the value
    answers_builtin_specials = True

    def reads_only_value(self, name: str) -> bool:
        return name in _VALUE_DUNDERS or (not name.startswith("_") and callable(getattr(float, name, None))
                                          and name != "fromhex")

    def as_graph_arg(self) -> Any:
        """The value, where a torch operation takes the object: torch reads the value of any float (subclass)
        itself. The class's Python arithmetic is not asked there: with the object on the left, its method was
        tried first (``left_user_dunder``); on the right, the tensor's method answers before any reflection."""
        return self.value

    as_example = as_graph_arg

    def builtin_text(self, dunder: str) -> Variable | None:
        """``repr(obj)`` and ``str(obj)`` where the class keeps float's ``__repr__``: the value's text."""
        if class_attribute(self.cls, dunder) is not float.__repr__:
            return None
        return ConstantVariable(repr(self.value))


def _made_value(cls: type, args: list[Variable], kwargs: dict[str, Variable]) -> float:
    """The value ``float.__new__(cls, *args)`` gives, for constant arguments that are plain values."""
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        raise Unsupported(f"creating a {cls.__qualname__} object", "its value is known only at run time")
    values = [a.as_python_constant() for a in args]
    if any(type(v) not in (int, float, str, bytes, bool) for v in values):
        raise Unsupported(f"creating a {cls.__qualname__} object", "float() of an object: its __float__ or __index__")
    try:
        return float(*values, **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"{cls.__name__}()", str(exc), exc_type=type(exc), exc_args=exc.args) from exc


def new_float_subclass(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
                       kwargs: dict[str, Variable]) -> FloatSubclassVariable:
    """``cls(...)`` for a float subclass that keeps ``float.__new__``: its ``__init__`` runs after."""
    return FloatSubclassVariable(cls, cls_source, _made_value(cls, args, kwargs))


BASE_MAKERS[float] = new_float_subclass


@builtin(float.__new__)
def builtin_float_new(tx, args, kwargs):
    """``float.__new__(cls, v)``: what a subclass's ``__new__`` reaches through ``super()``."""
    cls = subclass_passed_to_new(args, float)
    if cls is None:
        return None
    return FloatSubclassVariable(cls, args[0].source, _made_value(cls, args[1:], kwargs))
