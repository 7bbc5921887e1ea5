"""Which Python method answers an operator, and in what form its operands go: the in-place and binary
dunder tables, a right operand of a subclass asked first, an object of the user's on the left of a tensor
asking its own method, a constant whose class writes the method in Python (inlined, not folded), which C
``__eq__`` of a builtin container declines another kind, ``in``'s answer made a bool, and tensor subscripts
read through ``__index__``. Used by :mod:`.operator_semantics`."""

from __future__ import annotations

import collections
import operator
import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported
from ..operand_errors import unary_special
from ..policy import trusted_module_name
from .attributes import class_attribute
from .base import Variable
from .constant import ConstantVariable
from .container_tables import user_index, writes_index
from .containers import DictVariable, SequenceVariable, SetVariable, SliceVariable, TupleVariable
from .symbolic_scalars import SymbolicVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


#: In-place operators, mapped to their plain counterparts (immutable values fall back to those).
INPLACE = {
    operator.iadd: operator.add, operator.iand: operator.and_, operator.ifloordiv: operator.floordiv,
    operator.ilshift: operator.lshift, operator.imatmul: operator.matmul, operator.imul: operator.mul,
    operator.imod: operator.mod, operator.ior: operator.or_, operator.ipow: operator.pow,
    operator.irshift: operator.rshift, operator.isub: operator.sub, operator.itruediv: operator.truediv,
    operator.ixor: operator.xor,
}


#: Binary operator → (method, reflected method) Python looks up.
DUNDERS = {
    operator.add: ("__add__", "__radd__"), operator.sub: ("__sub__", "__rsub__"),
    operator.mul: ("__mul__", "__rmul__"), operator.truediv: ("__truediv__", "__rtruediv__"),
    operator.floordiv: ("__floordiv__", "__rfloordiv__"), operator.mod: ("__mod__", "__rmod__"),
    operator.pow: ("__pow__", "__rpow__"), operator.matmul: ("__matmul__", "__rmatmul__"),
    operator.and_: ("__and__", "__rand__"), operator.or_: ("__or__", "__ror__"),
    operator.xor: ("__xor__", "__rxor__"), operator.lshift: ("__lshift__", "__rlshift__"),
    operator.rshift: ("__rshift__", "__rrshift__"),
    operator.eq: ("__eq__", "__eq__"), operator.ne: ("__ne__", "__ne__"), operator.lt: ("__lt__", "__gt__"),
    operator.le: ("__le__", "__ge__"), operator.gt: ("__gt__", "__lt__"), operator.ge: ("__ge__", "__le__"),
}


def class_of(value: Variable) -> type | None:
    """The class whose special methods ``value`` runs (None: not known while tracing)."""
    if getattr(value, "stands_for", None) is not None:
        return value.cls  # a polyfill class standing in for a C class: its methods are the behaviour
    try:
        return value.python_type()
    except Unsupported:
        return None


#: modules whose methods written in Python read nothing but the object (an enum's ``__hash__``, a named tuple's
#: ``__repr__``): folded on a constant as C methods are
_READ_ONLY_THE_CONSTANT = frozenset({"enum", "collections", "typing"})


def python_method_of_constant(value: Any, name: str) -> types.FunctionType | None:
    """The function written in Python that ``value.name`` runs, for a constant of a class of the program's (an
    enum member, a named tuple subclass): None for a builtin type's constant, an attribute of the member's own,
    a C method, or one of enum's or collections' own methods. Such a function is inlined, never called while
    tracing and its result kept: that would run its effects once and keep what it reads of state unguarded."""
    cls = type(value)
    if cls.__module__ == "builtins" or name in getattr(value, "__dict__", {}):
        return None
    function = class_attribute(cls, name)
    if not isinstance(function, types.FunctionType) or not written_by_program(function):
        return None
    return function


def written_by_program(function: types.FunctionType) -> bool:
    """Whether a function of a constant's class may read state of the program: not enum's, collections' or
    typing's own (those read nothing but the constant)."""
    return (function.__module__ or "").partition(".")[0] not in _READ_ONLY_THE_CONSTANT


def constant_runs_python(value: Variable, *names: str) -> bool:
    """Whether ``value`` is a constant of the trace whose class writes one of special methods ``names`` in
    Python (see :func:`python_method_of_constant`): the operator or builtin inlines it instead of folding."""
    if not value.is_python_constant():
        return False
    real = value.as_python_constant()
    return any(python_method_of_constant(real, name) is not None for name in names)


#: special methods a class writes that no operator or builtin calls on its instances
_NOT_CALLED_BY_FOLDS = frozenset({
    "__init__", "__new__", "__init_subclass__", "__class_getitem__", "__set_name__", "__del__", "__getnewargs__",
    "__getnewargs_ex__", "__reduce__", "__reduce_ex__", "__getstate__", "__setstate__", "__dir__", "__sizeof__",
    "__subclasshook__", "__copy__", "__deepcopy__", "__new_member__"})  # (enum keeps the class's __new__ there)


#: operators that are no binary operator of ``DUNDERS`` nor a unary one → the special methods they call
_OTHER_OPERATOR_SPECIALS = {operator.getitem: ("__getitem__", "__index__"),
                            operator.contains: ("__contains__", "__eq__", "__iter__")}


def _asked_specials(fn: Any) -> tuple[str, ...] | None:
    """The special methods operator ``fn`` calls on its operands; None for any other function (a builtin may
    call any of them)."""
    names = DUNDERS.get(INPLACE.get(fn, fn))
    if names is not None:
        return names
    unary = unary_special(fn)
    return (unary,) if unary is not None else _OTHER_OPERATOR_SPECIALS.get(fn)


#: folded builtins that call no special method of their arguments' classes
_ASK_NO_SPECIALS = frozenset({isinstance, issubclass, type, id, callable, getattr, hasattr})


def refuse_folding_python_specials(fn: Any, values: list[Variable]) -> None:
    """Raise Unsupported where one of ``values`` is a constant whose class writes special methods in Python
    (an enum's ``__neg__``, ``__index__``): folding operator or builtin ``fn`` on it calls them now, keeping
    what they read unguarded. The common ones are traced before this is reached (comparisons, ``len``,
    ``hash``, text, unary operators, subscripts); anything else breaks, never folds."""
    if fn in _ASK_NO_SPECIALS:
        return
    asked = _asked_specials(fn)
    if fn is operator.mod and values and values[0].is_python_constant() \
            and isinstance(values[0].as_python_constant(), (str, bytes)):
        asked = None  # "%s" % obj: the text of the right operand (and its items) is asked
    what = f"{getattr(fn, '__name__', fn)}()"
    for value in values:
        if value.is_python_constant():
            real = value.as_python_constant()
            written = _written_specials(real, asked, deep=asked is None)
            if written:  # (named by its class: the repr of an enum member with a mixed-in type may raise)
                raise Unsupported(f"{what} of a {type(real).__qualname__}",
                                  f"its class writes {', '.join(written[:3])} in Python, which folding would call now")


def _written_specials(real: Any, asked: tuple[str, ...] | None, deep: bool) -> list[str]:
    """The special methods among ``asked`` (None: any a builtin may call) that ``real``'s class writes in
    Python; ``deep``: or the class of a member of a builtin container ``real`` (``repr((member,))``)."""
    cls = type(real)
    if cls.__module__ == "builtins":
        if deep and cls in (tuple, list, set, frozenset, dict):
            members = [*real, *real.values()] if cls is dict else real
            return next((found for member in members if (found := _written_specials(member, asked, deep))), [])
        return []
    if asked is None and isinstance(real, type):
        return []  # a class: a builtin asks its metaclass for nothing but the checks traced elsewhere
    names = asked or {name for klass in cls.__mro__ for name in vars(klass)
                      if name.startswith("__") and name.endswith("__") and name not in _NOT_CALLED_BY_FOLDS}
    return sorted(name for name in names if python_method_of_constant(real, name) is not None)


def has_python_special(value: Variable, name: str) -> bool:
    """Whether ``value``'s class defines special method ``name`` in Python (then it is inlined): a function, or a
    property whose getter is one (the slot reads it off the object and calls what it gives)."""
    cls = class_of(value)
    if cls is None:
        return False
    special = class_attribute(cls, name)
    return isinstance(special, types.FunctionType) or (type(special) is property
                                                       and isinstance(special.fget, types.FunctionType))


def left_user_dunder(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``op(left, tensor)`` where ``left``'s class writes the operator (its in-place form first) in Python:
    that method's answer, or None where it has none. A method answering NotImplemented would hand over to
    the tensor's reflection, which is not modelled here: a break."""
    names = DUNDERS.get(INPLACE.get(op, op))
    if names is None:
        return None
    candidates = [f"__{op.__name__}__", names[0]] if op in INPLACE else [names[0]]
    for name in candidates:
        if has_python_special(left, name):
            result = left.call_method(tx, name, [right], {})
            if not (result.is_python_constant() and result.as_python_constant() is NotImplemented):
                return result
            if name == names[0]:
                raise Unsupported(f"operator {op.__name__} on {left.describe()} and a tensor",
                                  "the object's method answered NotImplemented")
    return None


def subclass_operator(op: Any, left: Variable, right: Variable) -> bool:
    """Whether a list, tuple, dict or set subclass on either side writes ``op``'s method in Python (its forward
    or in-place one on the left, its reflection on the right): that method answers, where the container's C
    one would otherwise be modelled (or its constant members folded)."""
    names = DUNDERS.get(INPLACE.get(op, op))
    if names is None:
        return False
    kinds = (DictVariable, SequenceVariable, SetVariable)
    left_names = (f"__{op.__name__}__", names[0]) if op in INPLACE else (names[0],)
    return (isinstance(left, kinds) and any(_users_method(left, n) for n in left_names)) or \
        (isinstance(right, kinds) and _users_method(right, names[1]))


def _users_method(value: Variable, name: str) -> bool:
    """Whether ``value``'s class has ``name`` written in Python outside the libraries whose containers the
    translator models itself (``Counter.__add__`` is modelled, a user's ``list`` subclass's is not)."""
    cls = class_of(value)
    method = class_attribute(cls, name) if cls is not None else None
    return isinstance(method, types.FunctionType) and not trusted_module_name(method.__module__ or "")


def reflection_first(op: Any, left: Variable, right: Variable, reflected: str) -> bool:
    """Whether Python asks the right operand first: its class is a proper subclass of the left's and, for a
    comparison, has any rich comparison (always, as ``object`` has one), or, for arithmetic, a ``reflected``
    method other than the one the left's class has (CPython's ``method_is_overloaded``)."""
    left_cls, right_cls = class_of(left), class_of(right)
    if left_cls is None or right_cls is None or left_cls is right_cls or not issubclass(right_cls, left_cls):
        return False
    if op in _COMPARISONS:
        return True
    return class_attribute(right_cls, reflected) is not class_attribute(left_cls, reflected)


_COMPARISONS = frozenset({operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge})


def contains_answer(tx: InstructionTranslator, answer: Variable) -> Variable:
    """``in`` gives a bool whatever a Python ``__contains__`` returned: CPython takes the answer's truth."""
    if answer.is_python_constant() and type(answer.as_python_constant()) is bool:
        return answer
    return ConstantVariable(answer.truth(tx))


def indices_through_index(tx: InstructionTranslator, index: Variable) -> Variable:
    """A tensor subscript with objects whose class writes ``__index__`` in Python (alone, as slice bounds or
    in a tuple of indices) as the ints those give: torch reads them through ``__index__``, left to right."""
    if writes_index(index):
        return ConstantVariable(user_index(tx, index))
    if isinstance(index, SliceVariable) and any(writes_index(p) for p in index.parts):
        return SliceVariable(*(indices_through_index(tx, p) for p in index.parts))
    if type(index) is TupleVariable and index.source is None:
        items = [indices_through_index(tx, i) for i in index.items]
        if any(new is not old for new, old in zip(items, index.items)):
            return TupleVariable(items)
    return index


#: builtin container class → its kind: a C ``__eq__`` of one kind answers NotImplemented for another kind
#: (``deque([1]) == [1]`` is decided by identity), while classes of one kind compare contents.
_EQUALITY_KINDS = {list: "list", tuple: "tuple", collections.deque: "deque", set: "set", frozenset: "set",
                   dict: "dict", collections.OrderedDict: "dict", collections.defaultdict: "dict",
                   collections.Counter: "dict", str: "str", bytes: "bytes", bool: "number", int: "number",
                   float: "number", complex: "number"}


def different_container_kinds(left: Variable, right: Variable, inherited: bool = False) -> bool:
    """Whether both sides are builtin containers of different kinds, whose C ``__eq__`` both decline
    (``inherited``: or subclasses of them, which compare with their base's)."""
    kind = _equality_kind if inherited else _EQUALITY_KINDS.get
    kinds = [kind(exact_class(side)) for side in (left, right)]
    return None not in kinds and kinds[0] != kinds[1]


def _equality_kind(cls: type | None) -> str | None:
    """The kind of builtin container whose C ``__eq__`` ``cls`` inherits (a ``frozenset`` subclass's is a set's)."""
    return next((_EQUALITY_KINDS[base] for base in getattr(cls, "__mro__", ()) if base in _EQUALITY_KINDS), None)


def compares_in_c(value: Variable, name: str) -> bool:
    """Whether ``value``'s class answers ``name`` (``__eq__``/``__ne__``) with a C method of its own, neither
    ``object``'s identity nor one written in Python; unknown classes count as C."""
    cls = class_of(value)
    if cls is None:
        return True
    method = class_attribute(cls, name)
    return method is not getattr(object, name) and not isinstance(method, types.FunctionType)


def symbolic_bool(value: Variable) -> bool:
    """Whether ``value`` is a symbolic truth value (a SymBool: ``n > 1`` of a dynamic int)."""
    return isinstance(value, SymbolicVariable) and type(value.example) is torch.SymBool


def constant_compares_in_python(container: Variable, item: Variable) -> bool:
    """Whether ``item in container`` of constants would run an ``__eq__`` (or the container's ``__contains__``)
    written in Python: a tuple of enum members of a class that writes one is searched member by member, traced."""
    if constant_runs_python(container, "__contains__") or constant_runs_python(item, "__eq__"):
        return True
    members = container.as_python_constant()
    return type(members) is tuple and any(python_method_of_constant(m, "__eq__") is not None for m in members)


def exact_class(value: Variable) -> type | None:
    """``type(value)`` itself (a C class's stand-in gives the C class, whose own methods decide errors)."""
    try:
        return value.python_type()
    except Unsupported:
        return None
