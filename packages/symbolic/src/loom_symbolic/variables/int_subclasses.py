"""Instances of an int subclass made while tracing (``class Count(int)``, maybe with a ``__new__`` calling
``super().__new__(cls, n)``): an object of the class, its attributes and Python methods an object's, whose value
is known.

What ``int`` itself does with one (its arithmetic, comparisons, ``bit_length``...) reads only the value and gives a
plain ``int`` (or bool, float), as CPython does, so it is folded on the value; a method the class (or a base
between it and ``int``) overrides in Python is inlined instead. An operator with a tensor on the other side is the
tensor's with the value (``Tensor.__add__`` takes any int). Anything else ``int`` gives the object (hashing,
``__format__``, ``__index__`` for subscripts) is not modelled (a graph break).
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

#: ``int``'s special methods whose answer depends only on the value (not ``__format__``, ``__hash__``,
#: ``__index__``, ``__reduce_ex__``: they see, or hand on, the object).
_VALUE_DUNDERS = frozenset({
    "__eq__", "__ne__", "__lt__", "__le__", "__gt__", "__ge__", "__bool__", "__int__", "__float__", "__abs__",
    "__neg__", "__pos__", "__invert__", "__trunc__", "__floor__", "__ceil__", "__round__", "__repr__",
    *(f"__{prefix}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "divmod", "lshift",
                                      "rshift", "and", "or", "xor") for prefix in ("", "r")),
})



class IntSubclassVariable(ValueSubclassVariable):
    """An instance of an int subclass made while tracing: ``value`` is its value as an int."""

    base = int

    #: ``-obj``, ``abs(obj)``, ``~obj``: its call_method answers int's own special methods on the value
    answers_builtin_specials = True

    def reads_only_value(self, name: str) -> bool:
        return name in _VALUE_DUNDERS or (not name.startswith("_") and callable(getattr(int, name, None))
                                          and name != "from_bytes")

    def as_graph_arg(self) -> Any:
        """The value, where a torch operation takes the object: torch reads the value of any int (subclass)
        itself. The class's Python arithmetic is not asked there: with the object on the left, its method was
        tried first (``left_user_dunder``); on the right, the tensor's method answers before any reflection."""
        return self.value

    as_example = as_graph_arg

    def builtin_text(self, dunder: str) -> Variable | None:
        """``repr(obj)`` (and ``str(obj)``, which ``object.__str__`` makes a repr) where the class keeps int's
        ``__repr__``: the value's text."""
        if class_attribute(self.cls, dunder) is not int.__repr__:
            return None
        return ConstantVariable(repr(self.value))


def _made_value(cls: type, args: list[Variable], kwargs: dict[str, Variable]) -> int:
    """The value ``int.__new__(cls, *args, **kwargs)`` gives, for constant arguments that are plain values."""
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        raise Unsupported(f"creating a {cls.__qualname__} object", "its value is known only at run time")
    values = [a.as_python_constant() for a in args]
    if any(type(v) not in (int, float, str, bytes, bool) for v in values):
        raise Unsupported(f"creating a {cls.__qualname__} object", "int() of an object: its __int__ or __index__")
    try:
        return int(*values, **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"{cls.__name__}()", str(exc), exc_type=type(exc), exc_args=exc.args) from exc


def new_int_subclass(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
                     kwargs: dict[str, Variable]) -> IntSubclassVariable:
    """``cls(...)`` for an int subclass that keeps ``int.__new__``: its ``__init__`` runs after."""
    return IntSubclassVariable(cls, cls_source, _made_value(cls, args, kwargs))


BASE_MAKERS[int] = new_int_subclass


@builtin(int.__new__)
def builtin_int_new(tx, args, kwargs):
    """``int.__new__(cls, n)``: what a subclass's ``__new__`` reaches through ``super()``."""
    cls = subclass_passed_to_new(args, int)
    if cls is None:
        return None
    return IntSubclassVariable(cls, args[0].source, _made_value(cls, args[1:], kwargs))
