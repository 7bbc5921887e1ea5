"""What Python's operators do to symbolic values: one place for +, ==, is, in, [] and friends.

Tensors (and anything mixed with a tensor) become graph ops; constants fold; containers follow
their Python semantics; anything else is unsupported rather than guessed.
"""

from __future__ import annotations

import collections
import operator
from typing import TYPE_CHECKING, Any

from .. import operand_errors as _operand_errors
from ..errors import Unsupported, UserError, args_of
from .attributes import _MISSING, class_attribute
from .base import Variable
from .constant import ConstantVariable
from .containers import (
    DICT_METHODS,
    LIST_METHODS,
    SET_METHODS,
    DictVariable,
    ListVariable,
    SequenceVariable,
    SetVariable,
    SizeVariable,
    TupleVariable,
    constant_index,
)
from .folded_identity import copies_of, wrap_folded
from .iterators import IteratorVariable, UserIterator, each_item
from .operand_dispatch import (
    DUNDERS,
    INPLACE,
    class_of,
    compares_in_c,
    constant_compares_in_python,
    constant_runs_python,
    contains_answer,
    different_container_kinds,
    exact_class,
    has_python_special,
    indices_through_index,
    left_user_dunder,
    reflection_first,
    refuse_folding_python_specials,
    subclass_operator,
    symbolic_bool,
)
from .registry import wrap_constant_like
from .specialising import NOT_CONCRETE, concrete, has_symbolic_int
from .symbolic_scalars import SymbolicVariable
from .tensor import TensorVariable, refuse_tensor_slice_bounds

if TYPE_CHECKING:
    from collections.abc import Iterable

    from .protocol import Translator as InstructionTranslator


#: How operators apply to NumPy values made while tracing (``binary``, ``unary``): filled by :mod:`.numpy`.
NUMPY_OPERATORS: dict[str, Any] = {}
#: Binary operators of container kinds whose answer is more than a fold of their values (a set's result
#: keeps a table laid out as CPython's; dict views are not constants): ``fn(tx, op, left, right)`` returning
#: a variable, or None to pass. Filled by :mod:`.set_methods` and :mod:`.dict_methods`.
CONTAINER_OPERATORS: list[Any] = []


def is_tensor(value: Variable) -> bool:
    """Whether ``value`` is a graph value (a tensor, or a symbolic int/float/bool under dynamic shapes)."""
    return isinstance(value, (TensorVariable, SymbolicVariable))


def fold(op: Any, *args: Variable) -> Variable:
    """Apply ``op`` to constant arguments now; an exception is the program's own error."""
    refuse_folding_python_specials(op, list(args))
    return _fold_checked(op, *args)


def _fold_checked(op: Any, *args: Variable) -> Variable:
    """:func:`fold` once the caller knows no argument's class writes a special method ``op`` would call."""
    values = [a.as_python_constant() for a in args]
    try:
        result = op(*values)
    except Exception as exc:
        raise UserError(f"{getattr(op, '__name__', op)} raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                        exc_args=args_of(exc)) from exc
    return wrap_folded(result, copies_of(list(args), values))  # operator.getitem(rows, 0) is the very row


def binary(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable:
    """``op(left, right)`` for a binary or comparison operator from :mod:`operator`."""
    if getattr(left, "numpy_value", False) or getattr(right, "numpy_value", False):
        return NUMPY_OPERATORS["binary"](tx, op, left, right)
    if op in (operator.mod, operator.imod) and _is_text(left) and has_symbolic_int(right):
        # "%d" % size: specialised, as an f-string of it is (see specialising)
        known = concrete(tx, right)
        right = right if known is NOT_CONCRETE else wrap_constant_like(known)
    if op in (operator.eq, operator.ne) and (symbolic_bool(left) or symbolic_bool(right)):
        # ``(n > 1) == True``, ``(n > 1) != (n > 5)``: truth values compared with ==, which sympy's relations
        # cannot hold (``Eq(s0 > 1, True)``); each is specialised (a guard)
        left, right = (ConstantVariable(side.truth(tx)) if symbolic_bool(side) else side for side in (left, right))
    if is_tensor(left) or is_tensor(right):
        user = None if is_tensor(left) else left_user_dunder(tx, op, left, right)
        if user is not None:  # an object of the user's on the left asks its own method first (a += tensor)
            return user
        if op in INPLACE and not _updates_in_place(op, left):
            # ints, floats, symbolic sizes and a tensor without the in-place dunder: x @= y is x = x @ y
            op = INPLACE[op]
        if not isinstance(left, TensorVariable) and not isinstance(right, TensorVariable):
            _check_divisor(op, left, right)
        result = tx.output.call_function(tx, op, [left, right], {})
        if op in INPLACE:
            return left  # an in-place operator returns the very tensor it changed
        return result
    if left.passed_on or right.passed_on:  # a value handed on unread decides (or is read)
        return left.combine(tx, op, right, False) if left.passed_on else right.combine(tx, op, left, True)
    declined: set[tuple[int, str]] | None = None  # (side, name) of Python methods that answered NotImplemented
    if subclass_operator(op, left, right):  # a list, dict or set subclass's own method answers, not the C one
        declined = set()
        user = _user_dunder(tx, op, left, right, declined)
        if user is not None:
            return user
        if op not in (operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge):
            # the Python method fills the sequence slots too (list's concatenation declines as well)
            raise Unsupported(f"operator {op.__name__} on {left.describe()} and {right.describe()}",
                              "a container subclass's own method answered NotImplemented")
        # declined comparison: the other side's C comparison answers, as modelled below, without asking again
    if op in INPLACE:
        mutated = _inplace_container(tx, op, left, right)
        if mutated is not None:
            return mutated
    for container_operator in CONTAINER_OPERATORS:
        result = container_operator(tx, op, left, right)
        if result is not None:
            return result
    if left.is_python_constant() and right.is_python_constant():
        names = DUNDERS.get(INPLACE.get(op, op), ())
        if constant_runs_python(left, *names) or constant_runs_python(right, *names):
            # an enum's own __lt__ or __eq__: traced, never called now (it may read state or have effects)
            user = _user_dunder(tx, op, left, right, set())
            if user is not None:
                return user
            folded = fold(op, left, right)  # (refuses: the method declined and folding would call it now)
        elif names and not (op is operator.mod and _is_text(left)):
            folded = _fold_checked(op, left, right)  # fold() would ask these very names again
        else:  # ("%s" % obj asks the text of obj's members; an operator outside DUNDERS, any special)
            folded = fold(op, left, right)
        if folded is left and op in INPLACE and issubclass(left.python_type(), (list, dict, set)):
            raise Unsupported(f"operator {op.__name__} on {left.describe()}", "it changes the container in place")
        return folded
    if op in (operator.eq, operator.ne):
        same = _equal_by_identity(tx, left, right, op)
        if same is not None:
            return ConstantVariable(same == (op is operator.eq))
    sequence = _sequence_binary(tx, INPLACE.get(op, op), left, right)
    if sequence is not None:
        return sequence
    if op in (operator.mod, operator.imod) and _is_text(left) \
            and not issubclass(right.python_type(), type(left.as_python_constant())):
        # str's own % formats the object (its __str__/__repr__) before its class's __rmod__ could be asked
        raise Unsupported(f"operator % on {left.describe()} and {right.describe()}", "formatting an object: not modelled")
    if declined is None:
        declined = set()
        user = _user_dunder(tx, op, left, right, declined)
        if user is not None:
            return user
    _raise_unsupported_operands(op, left, right, declined)
    raise Unsupported(f"operator {getattr(op, '__name__', op)} on {left.describe()} and {right.describe()}",
                      "the translator does not model this combination")


def _is_text(value: Variable) -> bool:
    return value.is_python_constant() and isinstance(value.as_python_constant(), (str, bytes))


def _updates_in_place(op: Any, left: Variable) -> bool:
    """Whether ``left op= right`` changes ``left`` itself: a tensor whose type has the in-place dunder."""
    return isinstance(left, TensorVariable) and hasattr(left.python_type(), f"__{op.__name__}__")


_DIVISIONS = (operator.truediv, operator.floordiv, operator.mod)


def _check_divisor(op: Any, left: Variable, right: Variable) -> None:
    """Raise now what Python raises for a symbolic number divided by zero (or 0 to a negative power).

    The graph would raise it only when it runs, after the user's ``try`` has been left; deciding it
    here makes the divisor's zero-ness a guard.
    """
    if op in _DIVISIONS:
        zero = right.as_example() == 0
    elif op is operator.pow:
        zero = left.as_example() == 0 and right.as_example() < 0
    else:
        return
    if zero:  # on a symbolic number, bool() records the decision in the ShapeEnv
        name = op.__name__
        raise UserError(f"{name} raised ZeroDivisionError", f"{name} by zero", exc_type=ZeroDivisionError)


def unary(tx: InstructionTranslator, op: Any, value: Variable) -> Variable:
    """``op(value)`` for ``-x``, ``+x``, ``~x``, ``abs(x)``."""
    if getattr(value, "numpy_value", False):
        return NUMPY_OPERATORS["unary"](tx, op, value)
    if is_tensor(value):
        if op is operator.invert and value.python_type() is int:  # a SymInt has no ~: on an int it is -n - 1
            return binary(tx, operator.sub, unary(tx, operator.neg, value), ConstantVariable(1))
        return tx.output.call_function(tx, op, [value], {})
    name = _operand_errors.unary_special(op)
    if value.is_python_constant() and not (name is not None and constant_runs_python(value, name)):
        return fold(op, value)
    if name is not None and (has_python_special(value, name) or getattr(value, "answers_builtin_specials", False)):
        return value.call_method(tx, name, [], {})  # (an int subclass instance made in the trace: on its value)
    error = _operand_errors.unary_type_error(op, exact_class(value))
    if error is not None:
        raise error
    raise Unsupported(f"operator {op.__name__} on {value.describe()}", "not modelled")


_DICT_IOR = (dict.__ior__, collections.OrderedDict.__ior__)
_SET_INPLACE = {operator.ior: "update", operator.iand: "intersection_update", operator.isub: "difference_update",
                operator.ixor: "symmetric_difference_update"}


def _inplace_container(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    if op is operator.iadd and isinstance(left, ListVariable):
        LIST_METHODS["extend"](tx, left, [right], {})
        return left
    if op is operator.imul and isinstance(left, ListVariable) and right.is_python_constant():
        left.items[:] = left.items * right.as_python_constant()
        left.mutated(tx)
        return left
    if op is operator.ior and isinstance(left, DictVariable) and not left.read_only \
            and (isinstance(right, DictVariable) or class_attribute(left.python_type(), "__ior__") in _DICT_IOR):
        # d |= pairs (or any mapping): dict.update's (OrderedDict's stores through a Python __setitem__), in
        # place (a fold would change a copy)
        DICT_METHODS["update"](tx, left, [right], {})
        return left
    if op in _SET_INPLACE and isinstance(left, SetVariable) and not left.frozen:
        if not issubclass(right.python_type(), (set, frozenset)):
            return None  # Python raises TypeError: folded (or refused) like any other operand

        SET_METHODS[_SET_INPLACE[op]](tx, left, [right], {})
        return left
    return None


def _as_sequence(value: Variable) -> Variable:
    """A constant tuple or list as a sequence of constant variables (to combine with symbolic ones)."""
    if isinstance(value, ConstantVariable) and type(value.value) in (tuple, list):
        items = [ConstantVariable(v) for v in value.value]
        return TupleVariable(items) if type(value.value) is tuple else ListVariable(items)
    return value


def _sequence_binary(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    if isinstance(left, SequenceVariable) or isinstance(right, SequenceVariable):
        left, right = _as_sequence(left), _as_sequence(right)

    if isinstance(left, SequenceVariable) and isinstance(right, SequenceVariable):
        if op is operator.add:
            if isinstance(left, ListVariable) and isinstance(right, ListVariable):
                return ListVariable(left.items + right.items)
            if isinstance(left, TupleVariable) and isinstance(right, TupleVariable):
                # torch.Size's own __add__, or its __radd__ (tried first: a subclass of the plain tuple left of it)
                sized = isinstance(left, SizeVariable) or (isinstance(right, SizeVariable) and type(left) is TupleVariable)
                kind = SizeVariable if sized else TupleVariable
                return kind(left.items + right.items)
            return None
        if op in (operator.eq, operator.ne):
            equal = _sequences_equal(tx, left, right)
            return ConstantVariable(equal == (op is operator.eq))
        if op in _ORDERINGS and isinstance(left, ListVariable) == isinstance(right, ListVariable):
            return _sequences_ordered(tx, op, left, right)
    if op is operator.mul:
        seq, count = (left, right) if isinstance(left, SequenceVariable) else (right, left)
        if isinstance(seq, SequenceVariable) and count.is_python_constant():
            n = count.as_python_constant()
            if isinstance(n, int):
                if isinstance(seq, ListVariable):
                    return ListVariable(seq.items * n)
                return (SizeVariable if isinstance(seq, SizeVariable) else TupleVariable)(seq.items * n)
    return None


_ORDERINGS = (operator.lt, operator.le, operator.gt, operator.ge)


def _sequences_ordered(tx: InstructionTranslator, op: Any, left: SequenceVariable, right: SequenceVariable) -> Variable:
    """``<``, ``<=``, ``>``, ``>=`` of two lists (or two tuples), as CPython orders them: the first items
    that differ (identity, then ``==``) decide with ``op``; when one runs out first, the lengths do."""
    for a, b in zip(left.items, right.items):
        if not known_same(a, b) and not binary(tx, operator.eq, a, b).truth(tx):
            return binary(tx, op, a, b)
    return ConstantVariable(op(len(left.items), len(right.items)))


def _sequences_equal(tx: InstructionTranslator, left: SequenceVariable, right: SequenceVariable) -> bool:
    same_kind = isinstance(left, ListVariable) == isinstance(right, ListVariable)
    if not same_kind or len(left.items) != len(right.items):
        return False
    for a, b in zip(left.items, right.items):
        if known_same(a, b):
            continue
        if not binary(tx, operator.eq, a, b).truth(tx):
            return False
    return True


def _equal_by_identity(tx: InstructionTranslator, left: Variable, right: Variable, op: Any = operator.eq) -> bool | None:
    """``==`` (``!=``: ``op``) for objects that compare by identity (no ``__eq__``, nor for ``!=`` a ``__ne__``, of
    their own), and for two ``id()`` values known only at run time (:mod:`.object_ids`): equal when their objects
    are the same one. (The classes are read with ``class_attribute``: a method added to one later recompiles.)"""
    if hasattr(left, "id_of") and hasattr(right, "id_of"):
        return is_same(tx, left.id_of, right.id_of)
    a, b = real_object(left), real_object(right)
    if a is _NO_OBJECT or b is _NO_OBJECT:
        return None
    names = ("__eq__", "__ne__") if op is operator.ne else ("__eq__",)
    if all(class_attribute(type(v), n) is getattr(object, n) for v in (a, b) for n in names):
        if a is not b:  # two sources that may hold one object on a later call
            tx.output.aliases.relied_on_distinct()
        return a is b
    return None


def _user_dunder(tx: InstructionTranslator, op: Any, left: Variable, right: Variable,
                 declined: set[tuple[int, str]]) -> Variable | None:
    """A special method written in Python (``__add__``, ``__eq__``...), then its reflection, as Python does;
    ``==`` on objects without ``__eq__`` of their own compares identity."""
    names = DUNDERS.get(INPLACE.get(op, op))
    if names is None:
        return None
    attempts = [(0, left, names[0], right), (1, right, names[1], left)]
    if op not in INPLACE and reflection_first(op, left, right, names[1]):
        attempts.reverse()
    if op in INPLACE:  # x += y calls __iadd__ first (ModuleList's extends the list itself), then __add__
        attempts.insert(0, (0, left, f"__{op.__name__}__", right))
    for side, receiver, name, other in attempts:
        if has_python_special(receiver, name):
            result = receiver.call_method(tx, name, [other], {})
            if not (result.is_python_constant() and result.as_python_constant() is NotImplemented):
                return result
            declined.add((side, name))
        elif name == "__ne__" and _default_ne(receiver) and has_python_special(receiver, "__eq__"):
            # object.__ne__ asks the class's __eq__ and inverts its answer (NotImplemented passes through)
            result = receiver.call_method(tx, "__eq__", [other], {})
            if not (result.is_python_constant() and result.as_python_constant() is NotImplemented):
                return ConstantVariable(not result.truth(tx))
    if op in (operator.eq, operator.ne) and (left.mutable or right.mutable):
        if any(side.mutable and compares_in_c(side, names[0]) for side in (left, right)) \
                and not different_container_kinds(left, right, inherited=True):
            # an object's C __eq__ (Decimal's) answers, not identity: unmodelled, so the caller breaks (the C
            # __eq__ of a constant, an int's, gives NotImplemented for a foreign object)
            return None
        # Neither side compares the two (its __eq__ is absent or gave NotImplemented): identity decides.
        return ConstantVariable(is_same(tx, left, right) == (op is operator.eq))
    return None


def _raise_unsupported_operands(op: Any, left: Variable, right: Variable, declined: set[tuple[int, str]]) -> None:
    """Python's TypeError where neither operand's class answers ``op`` (no special method for it, or only
    ``declined`` ones, which answered NotImplemented)."""
    names = DUNDERS.get(INPLACE.get(op, op))
    if names is None:
        return
    if op in INPLACE:
        names = (f"__{op.__name__}__", *names)
    sides = [(exact_class(v), v.as_python_constant() if v.is_python_constant() else None) for v in (left, right)]
    error = _operand_errors.binary_type_error(op, names, sides[0], sides[1], frozenset(declined))
    if error is None and op in _ORDERINGS and different_container_kinds(left, right):
        # a deque and a list: each C comparison answers NotImplemented for the other kind, and Python's
        # TypeError names both classes, as ordering two empty ones shows
        error = _operand_errors.raised_error(op, sides[0][0](), sides[1][0]())
    if error is not None:
        raise error


class _NoObject:
    pass


_NO_OBJECT = _NoObject()


def real_object(value: Variable) -> Any:
    """The real Python object a variable wraps (modules, classes, functions, objects), if any."""
    return getattr(value, "value", _NO_OBJECT) if getattr(value, "wraps_real_object", False) else _NO_OBJECT


def known_same(left: Variable, right: Variable) -> bool:
    """Whether ``left`` and ``right`` are known to be one object: the identity test CPython's container
    comparisons (``in``, ``==`` of tuples, ``count``) make before ``==``, which decides for a NaN member. Two
    constants are one object when they wrap the same one (a NaN read from a global and from a tuple)."""
    if left is right:
        return True
    return isinstance(left, ConstantVariable) and isinstance(right, ConstantVariable) and left.value is right.value


def is_same(tx: InstructionTranslator, left: Variable, right: Variable) -> bool:
    """``left is right``."""
    # ``iter(obj)`` of an object whose __iter__ returns an iterator (itself, often) is that very object
    left, right = (side.obj if isinstance(side, UserIterator) else side for side in (left, right))
    if known_same(left, right):
        return True
    if isinstance(left, ConstantVariable) and isinstance(right, ConstantVariable):
        return False  # constants wrapping two objects
    a, b = real_object(left), real_object(right)
    if a is not _NO_OBJECT and b is not _NO_OBJECT:
        if a is not b:
            tx.output.aliases.relied_on_distinct()
        return a is b
    if (a is _NO_OBJECT) != (b is _NO_OBJECT) and (isinstance(left, ConstantVariable) or isinstance(right, ConstantVariable)):
        return False
    if type(left) is not type(right) and _distinct_kinds(left, right):
        return False
    if isinstance(left, TensorVariable) and isinstance(right, TensorVariable):
        # An in-place op's result (``torch.relu_(x)``, ``x.contiguous()`` of a contiguous ``x``) is a new node
        # but the very same tensor, in fake mode as in eager: identity is the example value, as for dict keys.
        same = left.node is right.node or left.example is right.example
        if not same:
            tx.output.aliases.relied_on_distinct()
        return same
    if left.mutable and right.mutable:
        tx.output.aliases.relied_on_distinct()
        return False  # two distinct tracked containers are distinct objects
    if isinstance(left, SequenceVariable) and isinstance(right, SequenceVariable) and len(left.items) != len(right.items):
        return False  # tuples of different lengths (t[1:] and t) are two objects
    raise Unsupported(f"'is' between {left.describe()} and {right.describe()}", "identity is not known while tracing")


def _distinct_kinds(left: Variable, right: Variable) -> bool:
    try:
        return left.python_type() is not right.python_type()
    except Unsupported:
        return False


def contains(tx: InstructionTranslator, container: Variable, item: Variable) -> Variable:
    """``item in container``."""
    if is_tensor(container):
        return tx.output.call_function(tx, operator.contains, [container, item], {})
    cls = exact_class(container)
    if cls is not None and class_attribute(cls, "__contains__") is None:  # ``__contains__ = None`` opts out
        message = f"'{cls.__name__}' object is not a container"
        raise UserError("'in'", message, exc_type=TypeError, exc_args=(message,))
    if isinstance(container, (DictVariable, SetVariable, SequenceVariable)) and \
            has_python_special(container, "__contains__"):  # a subclass's own, even of constant members
        return contains_answer(tx, container.call_method(tx, "__contains__", [item], {}))
    if isinstance(container, DictVariable):
        return ConstantVariable(container.has_key(DictVariable.key_of(item, tx)))
    if isinstance(container, SetVariable):
        return SET_METHODS["__contains__"](tx, container, [item], {})
    if container.is_python_constant() and item.is_python_constant() and not constant_compares_in_python(container, item):
        return fold(operator.contains, container, item)
    if has_python_special(container, "__contains__"):
        return contains_answer(tx, container.call_method(tx, "__contains__", [item], {}))
    if hasattr(container, "contains"):  # a C container a variable models (a dict keyed by tensors)
        return container.contains(tx, item)
    if isinstance(container, SequenceVariable) or type(getattr(container, "value", None)) is tuple:  # (1, 2) too
        members = container.items if isinstance(container, SequenceVariable) else container.unpack(tx)
        return ConstantVariable(any_equal(tx, members, item))
    if isinstance(container, IteratorVariable):
        # CPython searches an iterator item by item and stops at the first match: a generator runs no further.
        return ConstantVariable(any_equal(tx, each_item(tx, container), item))
    if cls is not None and getattr(container, "iterate", None) is not None and \
            class_attribute(cls, "__contains__") is _MISSING:
        # no __contains__: Python searches what iter() gives (a Python __iter__, or __getitem__ by index)
        if _operand_errors.not_iterable(cls):
            message = f"argument of type '{cls.__name__}' is not iterable"
            raise UserError("'in'", message, exc_type=TypeError, exc_args=(message,))
        return ConstantVariable(any_equal(tx, each_item(tx, container), item))
    raise Unsupported(f"'in' on {container.describe()}", "not modelled")


def any_equal(tx: InstructionTranslator, elements: Iterable[Variable], item: Variable) -> bool:
    """Whether one of ``elements`` is ``item`` or equals it, tried in order and stopping at the first,
    as CPython's sequence ``__contains__`` does (identity first, then ``==``)."""
    for element in elements:
        if known_same(element, item) or binary(tx, operator.eq, element, item).truth(tx):
            return True
    return False


#: Folded values whose items are found by position (a symbolic position is specialised).
_CONSTANT_SEQUENCES = (tuple, list, str, bytes, range)


#: Subscripts folded on real objects before any other rule (``typing.Union[int, str]``, ``Generic[T]``):
#: ``fn(tx, container, index)`` returning a variable, or None to pass. Filled by :mod:`.typing_forms`.
SUBSCRIPT_FOLDS: list[Any] = []


def getitem(tx: InstructionTranslator, container: Variable, index: Variable) -> Variable:
    """``container[index]``."""
    if is_tensor(container):
        index = indices_through_index(tx, index)
        refuse_tensor_slice_bounds(index)
        return tx.output.call_function(tx, operator.getitem, [container, index], {})
    for folded in SUBSCRIPT_FOLDS:
        result = folded(tx, container, index)
        if result is not None:
            return result
    if constant_runs_python(index, "__index__") and isinstance(container, SequenceVariable):
        index = index.call_method(tx, "__index__", [], {})  # a sequence asks an enum's own __index__
    method = getattr(container, "getitem", None)
    if method is not None and not _overrides(container, "__getitem__"):
        return method(tx, index)
    if method is None and container.is_python_constant() and not constant_runs_python(container, "__getitem__"):
        if index.is_python_constant():
            return fold(operator.getitem, container, index)
        if type(container.as_python_constant()) in _CONSTANT_SEQUENCES:
            # a symbolic int (or slice of them) indexing a folded tuple or string: specialised, as for a list
            return fold(operator.getitem, container, wrap_constant_like(constant_index(tx, index)))
    if has_python_special(container, "__getitem__"):
        return container.call_method(tx, "__getitem__", [index], {})
    raise Unsupported(f"subscript of {container.describe()}", "not modelled")


def _overrides(container: Variable, name: str) -> bool:
    """Whether ``container`` is an instance of a subclass of a builtin container (``ModelOutput``,
    an ``OrderedDict`` subclass) that defines special method ``name`` in Python: then the method
    is inlined rather than the container's own item access modelled."""
    subclass = getattr(container, "is_subclass_instance", None)
    return subclass is not None and subclass() and has_python_special(container, name)


def _default_ne(value: Variable) -> bool:
    """Whether ``value``'s class inherits ``object.__ne__`` (which answers from ``__eq__``)."""
    cls = class_of(value)
    return cls is not None and class_attribute(cls, "__ne__") is object.__ne__


def _named_as_is(cls: type) -> bool:
    """Whether CPython's messages name ``cls`` by its ``__name__`` (a class statement's, or a builtin's)."""
    return bool(cls.__flags__ & (1 << 9)) or cls.__module__ == "builtins"  # Py_TPFLAGS_HEAPTYPE


def setitem(tx: InstructionTranslator, container: Variable, index: Variable, value: Variable) -> None:
    """``container[index] = value``."""
    if is_tensor(container):
        refuse_tensor_slice_bounds(index)
        if _mask_assignment_with_grad(tx, container, index, value):
            raise Unsupported("item assignment through a boolean mask on a tensor that requires grad",
                              "its backward needs nonzero(), whose size depends on the data")
        tx.output.call_function(tx, operator.setitem, [container, index, value], {})
        return
    method = getattr(container, "setitem", None)
    if method is None or _overrides(container, "__setitem__"):
        if has_python_special(container, "__setitem__"):
            container.call_method(tx, "__setitem__", [index, value], {})
            return
        cls = exact_class(container)
        if cls is not None and class_attribute(cls, "__setitem__") is _MISSING and _named_as_is(cls):
            message = f"{cls.__name__!r} object does not support item assignment"  # a tuple, a str...
            raise UserError("item assignment", message, exc_type=TypeError, exc_args=(message,))
        raise Unsupported(f"item assignment on {container.describe()}", "not modelled")
    method(tx, index, value)


def _mask_assignment_with_grad(tx: InstructionTranslator, container: Variable, index: Variable,
                               value: Variable) -> bool:
    """Whether ``container[mask] = value`` records a backward: its forward traces, but AOTAutograd's
    backward of ``index_put_`` with a boolean index cannot (a graph break here, not a failed backend)."""
    import torch

    items = index.items if isinstance(index, SequenceVariable) else [index]
    if not any(isinstance(i, TensorVariable) and i.example.dtype in (torch.bool, torch.uint8) for i in items):
        return False
    return tx.output.grad_enabled and any(
        isinstance(v, TensorVariable) and v.example.requires_grad for v in (container, value))


def delitem(tx: InstructionTranslator, container: Variable, index: Variable) -> None:
    """``del container[index]``."""
    method = getattr(container, "delitem", None)
    if method is None or _overrides(container, "__delitem__"):
        if has_python_special(container, "__delitem__"):
            container.call_method(tx, "__delitem__", [index], {})
            return
        raise Unsupported(f"item deletion on {container.describe()}", "not modelled")
    method(tx, index)
