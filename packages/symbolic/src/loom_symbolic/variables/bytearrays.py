"""``bytearray`` made in the trace: a mutable sequence of ints 0..255, held as a real bytearray the trace
owns.

Its contents are always known while tracing (every value put in is a constant, or breaks), so the
variable keeps a real ``bytearray`` no one else can reach and applies the program's operations to it
with bytearray's own C methods: the results, the errors (``ValueError: byte must be in range(0, 256)``,
``TypeError``) and the state an error leaves are CPython's own. Other trace-owned bytearrays given as
arguments are passed as their real objects (``b.extend(b)``, ``b += c``); any other argument must be a
constant, a symbolic int (specialised) or a list or tuple of such. Where it escapes (returned, stored, live
across a graph break) it is rebuilt as ``bytearray(<its bytes now>)``, once, so names that held it still
share it. A bytearray read from the frame is not modelled (its operations break).
"""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

from loom_guards import Attr
from loom_guards.query_sources import Called

from ..errors import Unsupported, UserError, missing_attribute
from . import builtins as _builtins
from . import hashing, text  # noqa: F401  (their handlers of hash, str and repr are registered first: wrapped below)
from . import operator_semantics as _operators
from .base import Variable
from .constant import ConstantVariable
from .container_tables import constant_index
from .containers import ListVariable, SequenceVariable, TupleVariable
from .iterators import IteratorVariable
from .methods import MethodVariable
from .registry import PREDICATE_RULES, add_rule, wrap_constant_like, wrap_object
from .specialising import is_symbolic_int

if TYPE_CHECKING:
    from collections.abc import Callable

    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: bytearray's names the trace does not call: ones handing out the object's machinery or its memory
#: layout (which a rebuilt bytearray need not share), and iteration (a live iterator of its own).
_NOT_CALLED = frozenset({
    "__iter__", "__reduce__", "__reduce_ex__", "__getstate__", "__alloc__", "__sizeof__", "__getattribute__",
    "__setattr__", "__delattr__", "__new__", "__init_subclass__", "__subclasshook__", "__class__", "__dir__",
    "__hash__", "__doc__", "__buffer__", "__release_buffer__",
})
_METHODS = frozenset(name for name in dir(bytearray) if name not in _NOT_CALLED)


class BytearrayVariable(Variable):
    """A bytearray made while tracing, or read from the frame (``source``); ``value`` is a real bytearray
    holding its contents now, owned by this variable (the real one of the frame is changed after the graph)."""

    mutable = True

    def __init__(self, value: bytearray, source: Any = None) -> None:
        self.value = value
        self.source = source
        self.refilled = False  # (from the frame) whether the effect giving the real one its contents is recorded

    def changed(self, tx: InstructionTranslator) -> None:
        """The program changed the contents: one from the frame gets its final contents after the graph."""
        if self.source is not None and not self.refilled:
            self.refilled = True
            tx.output.side_effects.replay_effect(RefillBytearray(self))

    def python_type(self) -> type:
        return bytearray

    def is_python_constant(self) -> bool:
        return False  # it changes in place: never folded as a constant

    def as_python_constant(self) -> Any:
        raise Unsupported(f"a {self.describe()} given where a constant is needed",
                          "its contents change in place; only bytearray's own operations are modelled")

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.value)

    def held_state(self) -> tuple:
        """Its contents now: a body traced apart (a ``torch.cond`` branch) that changed them is refused."""
        return (bytes(self.value),)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return [ConstantVariable(byte) for byte in self.value]

    def iterate(self, tx: InstructionTranslator) -> IteratorVariable:
        """``iter(b)``: live, as CPython's bytearray iterator (it reads the current contents each step)."""
        return BytearrayIterator(self)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__class__":
            return wrap_constant_like(bytearray)
        if name in _METHODS:
            return MethodVariable(self, name)
        if not hasattr(bytearray, name):
            raise missing_attribute("'bytearray' object", name)
        raise Unsupported(f"attribute {name!r} of a bytearray", "not modelled")

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        if name not in _METHODS:
            return self.var_getattr(tx, name).call(tx, args, kwargs)
        owned: dict[int, Variable] = {id(self.value): self}
        real_args = [real_value(tx, a, owned) for a in args]
        real_kwargs = {k: real_value(tx, v, owned) for k, v in kwargs.items()}
        return apply(tx, f"bytearray.{name}", getattr(self.value, name), real_args, real_kwargs, owned)

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        return self.call_method(tx, "__getitem__", [wrap_constant_like(constant_index(tx, index))], {})

    def setitem(self, tx: InstructionTranslator, index: Variable, value: Variable) -> None:
        self.call_method(tx, "__setitem__", [wrap_constant_like(constant_index(tx, index)), value], {})

    def delitem(self, tx: InstructionTranslator, index: Variable) -> None:
        self.call_method(tx, "__delitem__", [wrap_constant_like(constant_index(tx, index))], {})

    def contains(self, tx: InstructionTranslator, item: Variable) -> Variable:
        return self.call_method(tx, "__contains__", [item], {})

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)  # the real object (given its final contents by RefillBytearray)
            return
        contents = bytes(self.value)
        codegen.call_const(bytearray, 1, lambda: codegen.load_const(contents))

    def describe(self) -> str:
        return f"bytearray of {len(self.value)}"

    def __repr__(self) -> str:
        return f"BytearrayVariable({self.value!r})"


class BytearrayIterator(IteratorVariable):
    """Iterates a trace-owned bytearray live: bytes appended during the loop are reached, as in CPython."""

    def __init__(self, target: BytearrayVariable) -> None:
        self.target = target
        self.index = 0
        self.done = False  # CPython's iterator lets go of its bytearray at the end: exhausted for good

    def python_type(self) -> type:
        return type(iter(bytearray()))

    def next_item(self, tx: InstructionTranslator) -> Variable | None:
        if self.done or self.index >= len(self.target.value):
            self.done = True
            return None
        self.index += 1
        return ConstantVariable(self.target.value[self.index - 1])

    def remaining(self) -> list[Variable] | None:
        return [] if self.done else [ConstantVariable(b) for b in self.target.value[self.index:]]

    def live_position(self) -> tuple[Callable[..., None], int]:
        if self.done:
            return (lambda codegen: codegen.call_const(bytearray, 0, lambda: None)), 0
        return (lambda codegen: codegen.reconstruct(self.target)), self.index

    reconstruct = IteratorVariable.reconstruct_live


def real_value(tx: InstructionTranslator, value: Variable, owned: dict[int, Variable]) -> Any:
    """The real object to hand bytearray's C code for ``value``: a trace-owned bytearray itself (noted in
    ``owned``), a constant, a symbolic int specialised, a list or tuple of those; otherwise a break."""
    if isinstance(value, BytearrayVariable):
        owned[id(value.value)] = value
        return value.value
    if is_symbolic_int(value):
        return constant_index(tx, value)
    if value.is_python_constant():
        return value.as_python_constant()
    if isinstance(value, SequenceVariable) and value.python_type() in (list, tuple) and id(value) not in owned:
        owned[id(value)] = value  # (a list holding itself is refused when it is reached again)
        try:
            return value.python_type()(real_value(tx, item, owned) for item in value.items)
        finally:
            del owned[id(value)]
    raise Unsupported(f"a bytearray operation on {value.describe()}", "a value not known while tracing")


def apply(tx: InstructionTranslator, what: str, fn: Any, args: list[Any], kwargs: dict[str, Any],
          owned: dict[int, Variable]) -> Variable:
    """``fn(*args, **kwargs)`` run now (its exception is the program's), the result wrapped; a bytearray
    from the frame it changed (even before raising) is noted."""
    from_frame = [(v, bytes(v.value)) for v in owned.values() if v.source is not None]
    try:
        result = fn(*args, **kwargs)
    except Exception as exc:
        raise UserError(what, str(exc), exc_type=type(exc), exc_args=exc.args) from exc
    finally:
        for variable, before in from_frame:
            if variable.value != before:
                variable.changed(tx)
    return wrap_result(result, owned)


def wrap_result(result: Any, owned: dict[int, Variable]) -> Variable:
    """The variable for ``result``: a trace-owned bytearray (``b += c`` gives ``b``) is its variable, a new
    bytearray a new one, a list or tuple holding bytearrays a list or tuple of variables."""
    known = owned.get(id(result))
    if known is not None:
        return known
    if type(result) is bytearray:
        return BytearrayVariable(result)
    if type(result) in (list, tuple) and any(type(item) is bytearray for item in result):
        items = [wrap_result(item, owned) for item in result]
        return ListVariable(items) if type(result) is list else TupleVariable(items)
    return wrap_constant_like(result)


def _involves_bytearray(values: list[Variable], seen: frozenset[int] = frozenset()) -> bool:
    """Whether a bytearray variable is among ``values`` or inside the lists and tuples among them (each
    searched once: a list may hold itself)."""
    return any(isinstance(v, BytearrayVariable) or (
        isinstance(v, SequenceVariable) and id(v) not in seen and _involves_bytearray(v.items, seen | {id(v)}))
        for v in values)


def _builtin_on_bytearrays(fn: Any) -> Any:
    """A handler for builtin ``fn`` (pure: it changes none of its arguments) given a trace-owned bytearray:
    called on the real objects now. Other calls go to the handler ``fn`` had, if any, or on to folding."""
    before = _builtins.HANDLERS.get(fn)

    def handler(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
        if not _involves_bytearray([*args, *kwargs.values()]):
            return before(tx, args, kwargs) if before is not None else None
        owned: dict[int, Variable] = {}
        real_args = [real_value(tx, a, owned) for a in args]
        real_kwargs = {k: real_value(tx, v, owned) for k, v in kwargs.items()}
        return apply(tx, f"{getattr(fn, '__qualname__', fn)}()", fn, real_args, real_kwargs, owned)

    return handler


#: Builtins that only read a bytearray's contents (``memoryview`` would share its memory: not among them).
for _fn in (bytes, str, repr, ascii, int.from_bytes, hash):
    _builtins.HANDLERS[_fn] = _builtin_on_bytearrays(_fn)


def _bytearray_call(tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``bytearray(...)`` of constants (``bytearray(3)``, ``bytearray(b"ab")``, ``bytearray("é", "utf-8")``,
    ``bytearray([1, 2])``) or of another trace-owned bytearray: a new trace-owned bytearray."""
    owned: dict[int, Variable] = {}
    try:
        real_args = [real_value(tx, a, owned) for a in args]
        real_kwargs = {k: real_value(tx, v, owned) for k, v in kwargs.items()}
    except Unsupported:
        return None  # an argument only known at run time (a tensor, an iterator): the call breaks
    return apply(tx, "bytearray()", bytearray, real_args, real_kwargs, {})


_builtins.HANDLERS[bytearray] = _bytearray_call

#: Operators whose operands are read, never kept (the in-place ones change the left bytearray).
_BYTEARRAY_OPERATORS = frozenset({
    operator.add, operator.mul, operator.mod, operator.iadd, operator.imul, operator.imod,
    operator.eq, operator.ne, operator.lt, operator.le, operator.gt, operator.ge,
})


def _bytearray_operator(tx: InstructionTranslator, op: Any, left: Variable, right: Variable) -> Variable | None:
    """``b + other``, ``b == other``, ``b += other``, ``3 * b``... with a trace-owned bytearray on a side and a
    constant (or another such bytearray) on the other: bytearray's own C operator, run now."""
    if op not in _BYTEARRAY_OPERATORS or not _involves_bytearray([left, right]):
        return None
    owned: dict[int, Variable] = {}
    try:
        operands = [real_value(tx, left, owned), real_value(tx, right, owned)]
    except Unsupported:
        return None
    return apply(tx, f"operator {op.__name__}", op, operands, {}, owned)


_operators.CONTAINER_OPERATORS.append(_bytearray_operator)


class RefillBytearray:
    """A bytearray from the frame was changed: give the real object the contents the trace ended with."""

    def __init__(self, variable: BytearrayVariable) -> None:
        self.variable = variable

    def stage(self, codegen: PyCodegen) -> tuple[str, str]:
        target = codegen.stash(self.variable)
        codegen.load_const(bytes(self.variable.value))
        contents = codegen.new_temp()
        codegen.emit("STORE_FAST", contents)
        return target, contents

    def apply(self, codegen: PyCodegen, staged: tuple[str, str]) -> None:
        target, contents = staged
        codegen.load_temps((contents, target))
        codegen.load_const(slice(None, None))
        codegen.emit("STORE_SUBSCR")  # target[:] = contents: bytearray's own slice assignment

    def describe(self) -> str:
        return f"contents of {self.variable.describe()} from the frame replaced"

    __str__ = describe


#: The most bytes a bytearray from the frame may hold to be modelled (its contents are guarded).
_LARGEST_GUARDED = 4096


def _from_the_frame(tx: InstructionTranslator | None, value: bytearray, source: Any) -> Variable:
    """A bytearray read from the frame: one variable per object, its contents guarded. Without a source (no
    way to guard or reach it), or a large one (a buffer whose contents change between calls would compile
    again each time, and its guard would read it whole), the rule the predicates would pick otherwise."""
    if tx is None or source is None or len(value) > _LARGEST_GUARDED:
        build = next((b for predicate, b in PREDICATE_RULES if b is not _from_the_frame and predicate(value)),
                     wrap_object)
        return build(tx, value, source)
    tx.output.note_alias(value, source)
    entry = tx.output.known_objects.get(id(value))
    if entry is not None and entry[0] is value:
        return entry[1]
    tx.output.guards.add("type", source, value)
    tx.output.guards.add("constant", Called(Attr(source, "hex")), value.hex())
    variable = BytearrayVariable(bytearray(value), source)
    tx.output.known_objects[id(value)] = (value, variable)
    return variable


add_rule(5, lambda value: type(value) is bytearray, _from_the_frame)
