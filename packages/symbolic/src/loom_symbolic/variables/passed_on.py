"""Values a loop changes in every pass, handed on by a resume function without being read.

A loop with a graph break in its body goes on, pass after pass, in the same resume functions (see
:mod:`.resumed_loops`). A list the loop appends to, a tuple or a string it grows with ``+=``, a dict it
stores into, a set it adds to: each is a live local of those resume functions, different at every entry. Modelled item by
item, its length is guarded and the resume function compiles once per pass.

So once such a local has been seen to differ in length between two entries of a resume function
(``DynamicSpec.varying``, learned by loom's dynamic policy), the trace holds it as a
:class:`PassedOnValue`: its type is guarded, nothing else, and what the trace does to it without reading
it is done at run time by the rewritten code:

- ``lst.append(v)``, ``lst.extend(seq)``, ``lst += seq``, ``d[key] = v`` and ``s.add(key)`` (also as a
  comprehension's ``LIST_APPEND``, ``MAP_ADD`` and ``SET_ADD``): calls made after the graph, in program
  order with the other side effects (``SideEffects.deferred_call``);
- ``t + (v,)``, ``t += (v,)``, ``s + "x"``: a :class:`GrownValue`, built at run time by the rewritten code.

Anything else (its length, its items, a comparison, a branch on it) reads it: the read is noted
(``OutputGraph.passed_on_reads``) and the translation starts over with the local modelled item by item
(``api.translate``), so the answer is always eager's.
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported
from .base import Variable
from .constant import ConstantVariable
from .containers import ListVariable, TupleVariable
from .methods import MethodVariable
from .symbolic_scalars import SymbolicVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator

#: The exact types a local may be handed on as (a subclass could run Python code on any operation).
PASSED_ON_TYPES = (list, tuple, dict, str, set)
#: Methods made at run time, by the type they belong to.
_DEFERRED_METHODS = {list: {"append": list.append, "extend": list.extend}, set: {"add": set.add}}
#: Methods whose argument is stored as it is (the others read the items of theirs, snapshotted now).
_STORING = (list.append, set.add)


class _Opaque(Variable):
    """A value the trace hands on without knowing what it holds; any read is noted and refused."""

    passed_on = True
    root: PassedOnValue

    def is_python_constant(self) -> bool:
        return False  # asking is not a read

    def as_python_constant(self) -> Any:
        self.read("used as a constant")

    def read(self, what: str) -> Any:
        """Note that the trace needs the value itself, and refuse (``api.translate`` starts over)."""
        root = self.root
        root.tx.output.passed_on_reads.add(root.name)
        raise Unsupported(f"{what}: {self.describe()}", "the value is handed on unread; it is read in the next try")

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        self.read(f"attribute {name!r}")

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        self.read("a call")

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        self.read("iteration")

    def truth(self, tx: InstructionTranslator) -> bool:
        self.read("a branch")

    def combine(self, tx: InstructionTranslator, op: Any, other: Variable, reflected: bool) -> Variable:
        """``self op other`` (``other op self`` when ``reflected``): a binary operator on this value."""
        grown = _grown(self, op, other, reflected)
        if grown is None:
            self.read(f"operator {getattr(op, '__name__', op)}")
        return grown


class PassedOnValue(_Opaque):
    """Local ``name`` of a resume function (a list, tuple, dict, str or set), handed on unread."""

    def __init__(self, tx: InstructionTranslator, value: Any, source: Any, name: str) -> None:
        self.tx = tx
        self.value = value
        self.source = source
        self.name = name
        self.root = self

    def python_type(self) -> type:
        return type(self.value)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in _DEFERRED_METHODS.get(type(self.value), ()):
            return MethodVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        method = _DEFERRED_METHODS.get(type(self.value), {}).get(name)
        if method is None or kwargs or len(args) != 1:
            return self.read(f"method {name}")
        argument = args[0] if method in _STORING else _snapshot(args[0])
        if argument is None or (method is set.add and not _hashes_natively(argument)):
            return self.read(f"method {name}")
        tx.output.side_effects.deferred_call(method, [self, argument], {}, None)
        return ConstantVariable(None)

    def setitem(self, tx: InstructionTranslator, index: Variable, value: Variable) -> None:
        """``d[index] = value`` on a dict, made after the graph (a key whose hash runs no Python code)."""
        if type(self.value) is not dict or not _hashes_natively(index):
            self.read("item assignment")
        tx.output.side_effects.deferred_call(dict.__setitem__, [self, index, value], {}, None)

    def combine(self, tx: InstructionTranslator, op: Any, other: Variable, reflected: bool) -> Variable:
        snapshot = _snapshot(other) if op is operator.iadd and type(self.value) is list and not reflected else None
        if snapshot is not None:
            tx.output.side_effects.deferred_call(list.extend, [self, snapshot], {}, None)
            return self  # ``lst += seq`` extends the very list
        return super().combine(tx, op, other, reflected)

    def describe(self) -> str:
        return f"a {type(self.value).__name__} the loop changes in every pass"


class GrownValue(_Opaque):
    """``left + right`` of a tuple or str handed on unread and a known one: built at run time."""

    #: Built once by the rewritten code, so every name holding it holds one object (``t is u``); two of
    #: them are two objects, as every ``+`` with a non-empty operand makes a new one.
    mutable = True

    def __init__(self, root: PassedOnValue, left: Variable, right: Variable) -> None:
        self.root = root
        self.left = left
        self.right = right

    def python_type(self) -> type:
        return type(self.root.value)

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.left)
        codegen.reconstruct(self.right)
        codegen.emit("BINARY_OP", 0)  # NB_ADD: a new tuple or str, as eager's + makes

    def describe(self) -> str:
        return f"a {self.python_type().__name__} grown in every pass of a loop"


def _hashes_natively(key: Variable) -> bool:
    """Whether hashing ``key`` at run time runs no Python code and cannot fail (a dict key, a set item)."""
    return isinstance(key, SymbolicVariable) or (
        isinstance(key, ConstantVariable) and type(key.value) in (int, str, bool, float, type(None)))


def _snapshot(value: Variable) -> Variable | None:
    """The items of a tuple or list the trace knows item by item, as they are now (a list made in the
    trace may change after ``extend`` read it, before the call is made), or None."""
    if type(value) is TupleVariable or (isinstance(value, ConstantVariable) and type(value.value) is tuple):
        return value
    if isinstance(value, ListVariable) and value.python_type() is list:
        return TupleVariable(list(value.items))
    return None


def _grown(value: _Opaque, op: Any, other: Variable, reflected: bool) -> Variable | None:
    """``value + other`` (or ``other + value``) for an immutable tuple or str, else None."""
    if op not in (operator.add, operator.iadd):
        return None
    kind = value.python_type()
    if kind is tuple:
        known = type(other) is TupleVariable or (
            isinstance(other, ConstantVariable) and type(other.value) is tuple)
    elif kind is str:
        known = isinstance(other, ConstantVariable) and type(other.value) is str
    else:
        return None
    if not known and not (getattr(other, "passed_on", False) and other.python_type() is kind):
        return None
    if (isinstance(other, TupleVariable) and not other.items) or (isinstance(other, ConstantVariable) and not other.value):
        return value  # CPython's + returns an exact tuple or str itself when the other operand is empty
    left, right = (other, value) if reflected else (value, other)
    return GrownValue(value.root, left, right)


def make_passed_on(tx: InstructionTranslator, value: Any, source: Any, name: str) -> Variable | None:
    """The variable for local ``name`` handed on unread, or None when it must be modelled: its type is
    not one of :data:`PASSED_ON_TYPES`, or the trace already holds the object through another source."""
    if type(value) not in PASSED_ON_TYPES:
        return None
    output = tx.output
    known = output.known_objects.get(id(value))
    if known is not None and known[0] is value:
        return None
    variable = PassedOnValue(tx, value, source, name)
    output.guards.add("type", source, value)
    if type(value) in (list, dict, set):  # one variable per mutable object: a second source reaches this one
        output.note_alias(value, source)
        output.known_objects[id(value)] = (value, variable)
    return variable


def passed_on_operands(values: list[Variable], depth: int = 2) -> set[str]:
    """The locals handed on unread among ``values`` (the operands of an instruction that broke), and
    among the items of the tuples and lists there (``f(*(lst, x))``)."""
    names: set[str] = set()
    for value in values:
        if value.passed_on:
            names.add(value.root.name)
        elif depth and isinstance(getattr(value, "items", None), list):
            names |= passed_on_operands(value.items, depth - 1)
    return names
