"""Tuples, named tuples, torch.Size, lists and slices while tracing."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from ..errors import UserError
from .base import Variable, members_constant
from .constant import ConstantVariable
from .container_tables import LIST_METHODS, SEQUENCE_METHODS, Method, constant_index
from .mappings import MethodTableMixin
from .methods import MethodVariable
from .registry import wrap_constant_like

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


class SequenceVariable(MethodTableMixin, Variable):
    """Shared behaviour of tuples and lists: items are variables."""

    container_type: type = tuple

    def __init__(self, items: list[Variable], source: Any = None) -> None:
        self.items = list(items)
        self.source = source

    def python_type(self) -> type:
        return self.container_type

    def table_method(self, name: str) -> Method | None:
        return SEQUENCE_METHODS.get(name)

    def as_python_constant(self) -> Any:
        return self.container_type(i.as_python_constant() for i in self.items)

    def is_python_constant(self) -> bool:
        # Asked item by item: asking a symbolic size "are you a constant" must not specialise it.
        return members_constant(self, self.items)

    def as_graph_arg(self) -> Any:
        return self.container_type(i.as_graph_arg() for i in self.items)

    def as_example(self) -> Any:
        return self.container_type(i.as_example() for i in self.items)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return list(self.items)

    def truth(self, tx: InstructionTranslator) -> bool:
        return self.container_truth(tx, len(self.items))

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        key = constant_index(tx, index)
        if isinstance(key, slice):
            if type(self) is TupleVariable and range(*key.indices(len(self.items))) == range(len(self.items)):
                return self  # t[:] and t[::1] of a tuple are the tuple itself, as CPython answers them
            return self.with_items(self.items[key])
        if not isinstance(key, int):
            key = getattr(key, "__index__", lambda: None)()
            if key is None:
                raise UserError("sequence index", f"indices must be integers or slices, not {type(key).__name__}", exc_type=TypeError)
        try:
            return self.items[key]
        except IndexError as exc:
            # the message names the list the items are held in: the program's own only for a list
            known = exc.args if self.container_type is list else None
            raise UserError(f"{self.container_type.__name__} index out of range", str(exc), exc_type=IndexError,
                            exc_args=known) from exc

    def with_items(self, items: list[Variable]) -> SequenceVariable:
        """A new sequence of this kind holding ``items``."""
        return type(self)(items)

    def reconstruct_items(self, codegen: PyCodegen) -> None:
        for item in self.items:
            codegen.reconstruct(item)

    def describe(self) -> str:
        return f"{self.container_type.__name__} of {len(self.items)}"

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.items!r})"


class TupleVariable(SequenceVariable):
    """A tuple; immutable, so one read from the frame is rebuilt by reading it again."""

    container_type = tuple

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        self.reconstruct_items(codegen)
        codegen.emit("BUILD_TUPLE", len(self.items))


class NamedTupleVariable(TupleVariable):
    """A named tuple or a torch structseq (``torch.return_types.max``): fields by name."""

    def __init__(self, items: list[Variable], cls: type, source: Any = None, real: Any = None) -> None:
        super().__init__(items, source)
        self.cls = cls
        self.attrs: dict[str, Variable] = {}  # named tuples have no instance __dict__
        #: the structseq itself, read from the frame (``sys.version_info``), for classes Python code cannot make
        self.real = real

    def python_type(self) -> type:
        return self.cls

    def as_python_constant(self) -> Any:
        if self.real is not None and all(item.is_python_constant() for item in self.items):
            return self.real
        return self._build([i.as_python_constant() for i in self.items])

    def as_example(self) -> Any:
        return self._build([i.as_example() for i in self.items])

    def _build(self, values: list[Any]) -> Any:
        return self.cls._make(values) if hasattr(self.cls, "_make") else self.cls(values)

    def with_items(self, items: list[Variable]) -> SequenceVariable:
        return TupleVariable(items)  # slicing a named tuple gives a plain tuple

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        names = getattr(self.cls, "_fields", None)
        if names is not None and name in names:
            return self.items[names.index(name)]
        if names is None and name in getattr(self.cls, "__match_args__", ()):  # a structseq's fields, in order
            return self.items[self.cls.__match_args__.index(name)]
        if names is None:
            probe = self.cls(tuple(range(len(self.items))))  # a structseq of indices tells field positions
            value = getattr(probe, name, None)
            if isinstance(value, int):
                return self.items[value]
        static = getattr(self.cls, name, None)
        if name == "_fields" or (static is not None and not callable(static) and not hasattr(type(static), "__get__")):
            # A plain class constant; properties and other descriptors are looked up below.
            return wrap_constant_like(getattr(self.cls, name))
        if static is None and self.source is not None and self.cls.__dictoffset__:
            # a subclass without __slots__: its instances have a __dict__, empty when this one was wrapped (one with
            # attributes is an object variable), and read missing here: giving it the attribute later recompiles
            tx.output.guards.add("absent_key", Attr(self.source, "__dict__"), name)
        return super().var_getattr(tx, name)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        codegen.load_callable(self.cls._make if hasattr(self.cls, "_make") else self.cls)
        self.reconstruct_items(codegen)
        codegen.emit("BUILD_TUPLE", len(self.items))
        codegen.call(1)

    def describe(self) -> str:
        return self.cls.__name__


def plain_structseq(value: tuple) -> bool:
    """Whether ``value`` is a C struct sequence (``sys.version_info``, ``sys.float_info``) whose fields are all its
    items, named by ``__match_args__``, and whose items are read as a tuple's."""
    return plain_structseq_class(type(value)) and type(value).n_fields == len(value)


def plain_structseq_class(cls: Any) -> bool:
    """Whether ``cls`` is a C struct sequence type (``torch.return_types.max``) whose fields are all items, named
    by ``__match_args__``, and whose items are read as a tuple's."""
    return (isinstance(cls, type) and type(cls.__dict__.get("n_sequence_fields")) is int
            and cls.n_fields == cls.n_sequence_fields and cls.__getitem__ is tuple.__getitem__
            and len(getattr(cls, "__match_args__", ())) == cls.n_fields)


#: Names a plain tuple subclass may define in Python: its construction and the class's own bookkeeping.
_PLAIN_SUBCLASS_NAMES = frozenset({
    "__new__", "__init__", "__module__", "__qualname__", "__doc__", "__dict__", "__weakref__", "__slots__",
    "__annotations__", "__firstlineno__", "__static_attributes__", "__orig_bases__", "__parameters__", "__classcell__",
    "__slotnames__",  # copyreg's cache of the slot names, stored by copy and pickle
})


def plain_tuple_subclass(cls: Any) -> bool:
    """Whether ``cls`` is a tuple subclass :class:`TupleSubclassVariable` models: a plain class (no metaclass,
    no named-tuple fields) whose classes between it and tuple define no other special method in Python
    (its ``len``, iteration, indexing, equality and hash are tuple's)."""
    if not isinstance(cls, type) or type(cls) is not type or cls is tuple or not issubclass(cls, tuple):
        return False
    if hasattr(cls, "_fields") or cls.__mro__[-2] is not tuple:
        return False
    below = cls.__mro__[:cls.__mro__.index(tuple)]
    return all(not (name.startswith("__") and name.endswith("__")) or name in _PLAIN_SUBCLASS_NAMES
               for klass in below for name in vars(klass))


class TupleSubclassVariable(TupleVariable):
    """An instance of a plain tuple subclass made while tracing (``class Pair(tuple)``, maybe with a
    ``__new__`` that calls ``super().__new__(cls, items)`` and sets attributes): its items are a tuple's,
    its attributes and Python methods an object's (the subclass rules of :class:`MethodTableMixin`)."""

    mutable = True  # its attributes can be set, and ``is`` tells two equal ones apart

    def __init__(self, items: list[Variable], cls: type, cls_source: Any = None) -> None:
        super().__init__(items)
        self.cls = cls
        self.cls_source = cls_source
        self.attrs: dict[str, Variable] = {}

    def python_type(self) -> type:
        return self.cls

    def is_python_constant(self) -> bool:
        return False  # a folded copy would be a plain tuple

    def as_python_constant(self) -> Any:
        return Variable.as_python_constant(self)

    def with_items(self, items: list[Variable]) -> SequenceVariable:
        return TupleVariable(items)  # slicing one gives a plain tuple

    def reconstruct(self, codegen: PyCodegen) -> None:
        """``tuple.__new__(cls, items)`` (no ``__new__`` or ``__init__`` of the class runs again), then its attributes."""
        codegen.load_callable(tuple.__new__)
        codegen.load_const(self.cls)
        self.reconstruct_items(codegen)
        codegen.emit("BUILD_TUPLE", len(self.items))
        codegen.call(2)
        self.reconstruct_attributes(codegen)

    def describe(self) -> str:
        return f"{self.cls.__name__} object made while tracing"


class SizeVariable(TupleVariable):
    """``torch.Size``: a tuple of ints (constants while shapes are static)."""

    @classmethod
    def of(cls, size: torch.Size | tuple) -> SizeVariable:
        """A Size variable from a concrete size."""
        return cls([ConstantVariable(int(d)) for d in size])

    def python_type(self) -> type:
        return torch.Size

    def as_python_constant(self) -> Any:
        return torch.Size(i.as_python_constant() for i in self.items)

    def as_graph_arg(self) -> Any:
        return tuple(i.as_graph_arg() for i in self.items)

    def as_example(self) -> Any:
        return torch.Size(i.as_example() for i in self.items)

    def with_items(self, items: list[Variable]) -> SequenceVariable:
        return SizeVariable(items)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "numel":
            return MethodVariable(self, name)
        return super().var_getattr(tx, name)

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if name == "numel" and not args and not kwargs:
            total = 1
            for item in self.items:
                total *= item.as_python_constant()
            return ConstantVariable(total)
        return super().call_method(tx, name, args, kwargs)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.is_python_constant():
            codegen.load_const(self.as_python_constant())
            return
        codegen.load_callable(torch.Size)
        self.reconstruct_items(codegen)
        codegen.emit("BUILD_TUPLE", len(self.items))
        codegen.call(1)


class ListVariable(SequenceVariable):
    """A list. Mutable: one from outside the frame gets its final contents back after the graph."""

    container_type = list
    mutable = True

    def __init__(self, items: list[Variable], source: Any = None, cls: type = list, cls_source: Any = None,
                 new: bool = False, real: Any = None) -> None:
        super().__init__(items, source)
        self.cls = cls
        self.cls_source = cls_source
        self.real = real
        self.attrs: dict[str, Variable] = {}

    def python_type(self) -> type:
        return self.cls

    def table_method(self, name: str) -> Method | None:
        return LIST_METHODS.get(name)

    def with_items(self, items: list[Variable]) -> SequenceVariable:
        return ListVariable(items)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.cls is not list:
            def fill(base: type) -> None:
                codegen.load_callable(base.extend)
                codegen.emit("COPY", 3)
                self.reconstruct_items(codegen)
                codegen.emit("BUILD_LIST", len(self.items))
                codegen.call(2)
                codegen.emit("POP_TOP")

            self.reconstruct_new_instance(codegen, fill)
            return
        self.reconstruct_items(codegen)
        codegen.emit("BUILD_LIST", len(self.items))

    def setitem(self, tx: InstructionTranslator, index: Variable, value: Variable) -> None:
        key = constant_index(tx, index)
        try:
            if isinstance(key, slice):
                replaced = list(range(len(self.items)))
                if _not_iterable_constant(value):  # the real TypeError, worded as this CPython words it
                    replaced[key] = value.as_python_constant()
                items = value.unpack(tx)  # once: an iterator gives its items only once
                replaced[key] = items  # validates the slice assignment like Python does
                self.items[key] = items
            else:
                self.items[key] = value
        except (IndexError, ValueError, TypeError) as exc:
            raise UserError("list assignment", str(exc), exc_type=type(exc), exc_args=exc.args) from exc
        self.mutated(tx)

    def delitem(self, tx: InstructionTranslator, index: Variable) -> None:
        key = constant_index(tx, index)
        try:
            del self.items[key]
        except (IndexError, TypeError, ValueError) as exc:  # ValueError: a slice step of 0
            raise UserError("list deletion", str(exc), exc_type=type(exc), exc_args=exc.args) from exc
        self.mutated(tx)


def plain_sequence(value: Variable) -> bool:
    """A tuple or a list of the trace's own kinds (no named tuple or structseq): a list from the frame not read
    yet (``lazy_list``) included."""
    return type(value) is TupleVariable or isinstance(value, ListVariable)


def _not_iterable_constant(value: Variable) -> bool:
    """Whether ``value`` is a constant ``iter()`` refuses (``lst[1:3] = 1``)."""
    if not value.is_python_constant():
        return False
    try:
        iter(value.as_python_constant())
    except TypeError:
        return True
    return False


class SliceVariable(Variable):
    """``slice(start, stop, step)`` whose parts may be symbolic."""

    def __init__(self, start: Variable, stop: Variable, step: Variable) -> None:
        self.parts = (start, stop, step)

    def python_type(self) -> type:
        return slice

    def as_python_constant(self) -> Any:
        return slice(*(p.as_python_constant() for p in self.parts))

    def is_python_constant(self) -> bool:
        return all(p.is_python_constant() for p in self.parts)

    def as_graph_arg(self) -> Any:
        return slice(*(p.as_graph_arg() for p in self.parts))

    def as_example(self) -> Any:
        return slice(*(p.as_example() for p in self.parts))

    def reconstruct(self, codegen: PyCodegen) -> None:
        for part in self.parts:
            codegen.reconstruct(part)
        codegen.emit("BUILD_SLICE", 3)

