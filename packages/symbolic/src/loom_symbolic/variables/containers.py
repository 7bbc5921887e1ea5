"""Tuples, lists, torch.Size, named tuples, dicts, sets and slices while tracing."""

from __future__ import annotations

import collections
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import compared_by_identity

from ..errors import Unsupported, UserError
from .attributes import _MISSING, InstanceAttributes, builtin_base, class_attribute, resolve, view_of_real
from .base import Variable
from .constant import ConstantVariable
from .methods import MethodVariable
from .registry import wrap_constant_like
from .symbolic_scalars import SymbolicVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator



#: Dict types whose instances fold to a real instance of the same type with the same items.
_FOLDABLE_DICTS = frozenset({dict, collections.OrderedDict, collections.Counter, collections.defaultdict})


def constant_index(tx: InstructionTranslator, index: Variable) -> Any:
    """A subscript that must be known while tracing (an int or a slice of ints)."""
    if not index.is_python_constant():
        raise Unsupported("indexing a Python sequence with a value known only at run time",
                          "the index is a tensor or an unknown value")
    return index.as_python_constant()


class MethodTableMixin(InstanceAttributes):
    """Containers find their methods in the tables below (filled by :mod:`.container_methods`).

    An instance of a subclass (``class Registry(dict)``, ``ModelOutput``) follows Python's attribute
    rules instead: methods the subclass defines in Python are inlined with the container as ``self``,
    and builtin methods it inherits (or reaches through ``super()``) come back to the table.
    """

    cls: type
    attrs: dict[str, Variable]
    real: Any = None
    cls_source: Any = None

    def is_subclass_instance(self) -> bool:
        return self.python_type().__module__ != "builtins" and self.python_type() is not torch.Size

    def object_view(self, tx: InstructionTranslator) -> Any:
        if self.real is not None:
            return view_of_real(tx, self, self.real, self.source, getattr(self.real, "__dict__", None))
        return super().object_view(tx)

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if self.is_subclass_instance():
            return self.var_getattr(tx, name).call(tx, args, kwargs)
        return self.call_builtin_method(tx, name, args, kwargs)

    def call_builtin_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        """The builtin container's own method, ignoring Python overrides (what ``super()`` reaches)."""
        method = lookup(self, name)
        if method is None:
            raise Unsupported(f"method {name!r} of {self.describe()}", "not modelled")
        return method(tx, self, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if self.is_subclass_instance():
            return resolve(tx, self.object_view(tx), name)
        if lookup(self, name) is None:
            if not hasattr(self.python_type(), name):
                raise UserError(f"attribute {name!r}", f"{self.python_type().__name__!r} object has no attribute {name!r}",
                                exc_type=AttributeError)
            raise Unsupported(f"attribute {name!r} of {self.describe()}", "not modelled")
        return MethodVariable(self, name)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        if not self.is_subclass_instance():
            raise UserError(f"setting {name!r}", f"{self.python_type().__name__!r} object has no attribute {name!r}",
                            exc_type=AttributeError)
        if self.real is not None and self.source is None:
            raise Unsupported(f"setting {name!r} on a {self.python_type().__name__} the trace cannot reach",
                              "not modelled")
        super().store_attr(tx, name, value)  # a __setattr__ written in Python is inlined


    def instance_dict(self) -> Variable:
        """``self.__dict__`` of a subclass instance made while tracing."""
        return InstanceDictVariable(self)

    def reconstruct_new_instance(self, codegen: PyCodegen, fill: Any) -> None:
        """Rebuild a subclass instance made while tracing: ``cls.__new__(cls)``, then ``fill`` restores
        its items through the builtin base's own methods, then its attributes."""
        cls = self.python_type()
        codegen.load_callable(cls.__new__)
        codegen.load_const(cls)
        codegen.call(1)
        fill(builtin_base(cls))
        self.reconstruct_attributes(codegen)


class SequenceVariable(MethodTableMixin, Variable):
    """Shared behaviour of tuples and lists: items are variables."""

    container_type: type = tuple

    def __init__(self, items: list[Variable], source: Any = None) -> None:
        self.items = list(items)
        self.source = source

    def python_type(self) -> type:
        return self.container_type

    def as_python_constant(self) -> Any:
        return self.container_type(i.as_python_constant() for i in self.items)

    def is_python_constant(self) -> bool:
        # Asked item by item: asking a symbolic size "are you a constant" must not specialise it.
        return all(i.is_python_constant() for i in self.items)

    def as_graph_arg(self) -> Any:
        return self.container_type(i.as_graph_arg() for i in self.items)

    def as_example(self) -> Any:
        return self.container_type(i.as_example() for i in self.items)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return list(self.items)

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.items)

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        key = constant_index(tx, index)
        if isinstance(key, slice):
            return self.with_items(self.items[key])
        if not isinstance(key, int):
            key = getattr(key, "__index__", lambda: None)()
            if key is None:
                raise UserError("sequence index", f"indices must be integers or slices, not {type(key).__name__}", exc_type=TypeError)
        try:
            return self.items[key]
        except IndexError as exc:
            raise UserError(f"{self.container_type.__name__} index out of range", str(exc), exc_type=IndexError) from exc

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

    def __init__(self, items: list[Variable], cls: type, source: Any = None) -> None:
        super().__init__(items, source)
        self.cls = cls
        self.attrs: dict[str, Variable] = {}  # named tuples have no instance __dict__

    def python_type(self) -> type:
        return self.cls

    def as_python_constant(self) -> Any:
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
        if names is None:
            probe = self.cls(tuple(range(len(self.items))))  # a structseq of indices tells field positions
            value = getattr(probe, name, None)
            if isinstance(value, int):
                return self.items[value]
        static = getattr(self.cls, name, None)
        if name == "_fields" or (static is not None and not callable(static) and not hasattr(type(static), "__get__")):
            # A plain class constant; properties and other descriptors are looked up below.
            return wrap_constant_like(getattr(self.cls, name))
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

    def mutated(self, tx: InstructionTranslator) -> None:
        """Record that the program changed this list."""
        if self.source is not None:
            tx.output.side_effects.mutated_container(self)

    def setitem(self, tx: InstructionTranslator, index: Variable, value: Variable) -> None:
        key = constant_index(tx, index)
        try:
            if isinstance(key, slice):
                items = value.unpack(tx)  # once: an iterator gives its items only once
                replaced = list(range(len(self.items)))
                replaced[key] = items  # validates the slice assignment like Python does
                self.items[key] = items
            else:
                self.items[key] = value
        except (IndexError, ValueError, TypeError) as exc:
            raise UserError("list assignment", str(exc), exc_type=type(exc)) from exc
        self.mutated(tx)

    def delitem(self, tx: InstructionTranslator, index: Variable) -> None:
        key = constant_index(tx, index)
        try:
            del self.items[key]
        except (IndexError, TypeError) as exc:
            raise UserError("list deletion", str(exc), exc_type=type(exc)) from exc
        self.mutated(tx)


class DictVariable(MethodTableMixin, Variable):
    """A dict whose keys are known while tracing (constants, or objects hashed by identity)."""

    mutable = True
    #: the only table methods it has (a read-only ``mappingproxy``), or None for all
    only_methods: frozenset | None = None

    def __init__(self, items: dict[Any, Variable], source: Any = None, cls: type = dict, cls_source: Any = None,
                 new: bool = False, real: Any = None) -> None:
        self.items = dict(items)
        self.source = source
        self.cls = cls
        self.cls_source = cls_source
        self.real = real
        self.attrs: dict[str, Variable] = {}

    def python_type(self) -> type:
        return self.cls

    def as_python_constant(self) -> Any:
        items = {k: v.as_python_constant() for k, v in self.items.items()}
        if self.cls is dict:
            return items
        if self.cls is collections.defaultdict:
            return collections.defaultdict(self._default_factory().as_python_constant(), items)
        return self.cls(items)  # OrderedDict, Counter: folded operators and repr() see the real type

    def is_python_constant(self) -> bool:
        if self.cls not in _FOLDABLE_DICTS:
            return False  # a user subclass: its methods (or attributes) could make a folded copy differ
        if self.cls is collections.defaultdict and not self._default_factory().is_python_constant():
            return False
        return all(v.is_python_constant() for v in self.items.values())

    def _default_factory(self) -> Variable:
        factory = self.attrs.get("default_factory")
        if factory is None:
            factory = wrap_constant_like(getattr(self.real, "default_factory", None))
        return factory

    def as_graph_arg(self) -> Any:
        return {k: v.as_graph_arg() for k, v in self.items.items()}

    def as_example(self) -> Any:
        return {k: v.as_example() for k, v in self.items.items()}

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.items)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return [key_variable(k) for k in self.items]

    @staticmethod
    def key_of(key: Variable) -> Any:
        """The Python key a variable stands for: a constant, or an object hashed by identity."""
        if getattr(key, "wraps_real_object", False) and compared_by_identity(key.value):
            pin = getattr(key, "pin_identity", None)
            if pin is not None:  # a module guarded by type: which key it is depends on the very object
                pin()
            return key.value
        if isinstance(key, SymbolicVariable):
            # A size as a memo table's key: the trace specialises on its value (a guard), as
            # torch.compile does, rather than break.
            return key.as_python_constant()
        if key.is_python_constant():
            value = key.as_python_constant()
            try:
                hash(value)
            except TypeError as exc:
                raise UserError("dict key", f"unhashable type: {type(value).__name__!r}", exc_type=TypeError) from exc
            return value
        raise Unsupported("a dict key known only at run time", "keys must be constants while tracing")

    def lookup(self, key: Any) -> Variable | None:
        """The value under Python key ``key``, or None when the dict has no such key."""
        return self.items.get(key)

    def has_key(self, key: Any) -> bool:
        """Whether Python key ``key`` is in the dict."""
        return key in self.items

    def getitem(self, tx: InstructionTranslator, key: Variable) -> Variable:
        k = self.key_of(key)
        value = self.lookup(k)
        if value is None:
            if self.cls is not dict and class_attribute(self.cls, "__missing__") is not _MISSING:
                # dict.__getitem__ of a subclass defining __missing__ (defaultdict, Counter) calls it
                return self.var_getattr(tx, "__missing__").call(tx, [key], {})
            raise UserError("dict lookup", f"KeyError: {k!r}", exc_type=KeyError)
        return value

    def setitem(self, tx: InstructionTranslator, key: Variable, value: Variable) -> None:
        self.items[self.key_of(key)] = value
        self.mutated(tx)

    def delitem(self, tx: InstructionTranslator, key: Variable) -> None:
        k = self.key_of(key)
        if k not in self.items:
            raise UserError("dict deletion", f"KeyError: {k!r}", exc_type=KeyError)
        del self.items[k]
        self.mutated(tx)

    def mutated(self, tx: InstructionTranslator) -> None:
        """Record that the program changed this dict."""
        if self.source is not None:
            tx.output.side_effects.mutated_container(self)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.cls is not dict:
            def fill(base: type) -> None:
                for key, value in self.items.items():
                    codegen.load_callable(base.__setitem__)
                    codegen.emit("COPY", 3)
                    codegen.load_const(key)
                    codegen.reconstruct(value)
                    codegen.call(3)
                    codegen.emit("POP_TOP")

            self.reconstruct_new_instance(codegen, fill)
            return
        for key, value in self.items.items():
            codegen.load_const(key)
            codegen.reconstruct(value)
        codegen.emit("BUILD_MAP", len(self.items))

    def describe(self) -> str:
        return f"dict of {len(self.items)}"

    def __repr__(self) -> str:
        return f"DictVariable({self.items!r})"


class SetVariable(MethodTableMixin, Variable):
    """A set of constants."""

    mutable = True

    def __init__(self, items: list[Variable], source: Any = None, frozen: bool = False) -> None:
        self.values: dict[Any, Variable] = {}
        for item in items:
            self.values[DictVariable.key_of(item)] = item
        self.source = source
        self.frozen = frozen

    def python_type(self) -> type:
        return frozenset if self.frozen else set

    def as_python_constant(self) -> Any:
        return (frozenset if self.frozen else set)(self.values)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        # Iterate in the order the real set would: build it and follow its order.
        return [self.values[v] for v in self.as_python_constant()]

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.values)

    def add(self, item: Variable) -> None:
        """Add one member."""
        self.values[DictVariable.key_of(item)] = item

    def mutated(self, tx: InstructionTranslator) -> None:
        """Record that the program changed this set."""
        if self.source is not None:
            tx.output.side_effects.mutated_container(self)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.frozen:  # members are constants, so the frozenset is one too
            codegen.load_const(self.as_python_constant())
            return
        for item in self.values.values():
            codegen.reconstruct(item)
        codegen.emit("BUILD_SET", len(self.values))


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


def key_variable(key: Any) -> Variable:
    """The variable for a dict key (keys are constants or identity-hashed objects)."""
    return wrap_constant_like(key)


# -- method tables -----------------------------------------------------------------------------------
Method = Callable[[Any, Any, list[Variable], dict[str, Variable]], Variable]
#: name → ``method(tx, container, args, kwargs)``, one table per container kind. Owned here, filled by
#: :mod:`.container_methods` (which the catalogue loads with the translator).
SEQUENCE_METHODS: dict[str, Method] = {}
LIST_METHODS: dict[str, Method] = {}
DICT_METHODS: dict[str, Method] = {}
SET_METHODS: dict[str, Method] = {}
#: Methods only ``set`` has; a frozenset has no such attribute.
SET_MUTATORS = {"add", "update", "discard", "remove", "clear", "pop", "difference_update",
                "intersection_update", "symmetric_difference_update"}


def lookup(receiver: Variable, name: str) -> Method | None:
    """The method-table entry for ``receiver.name``, if the container kind defines it."""
    if isinstance(receiver, ListVariable):
        return LIST_METHODS.get(name)
    if isinstance(receiver, SequenceVariable):
        return SEQUENCE_METHODS.get(name)
    if isinstance(receiver, DictVariable):
        only = receiver.only_methods
        return DICT_METHODS.get(name) if only is None or name in only else None
    if isinstance(receiver, SetVariable):
        if receiver.frozen and name in SET_MUTATORS:
            return None
        return SET_METHODS.get(name)
    return None


class InstanceDictVariable(DictVariable):
    """``obj.__dict__`` of an object made while tracing: the very dict of its attributes."""

    def __init__(self, owner: Variable) -> None:
        super().__init__({})
        self.owner = owner
        self.items = owner.attrs  # shared, so writes through __dict__ are attribute writes

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.owner)
        codegen.emit("LOAD_ATTR", "__dict__")
