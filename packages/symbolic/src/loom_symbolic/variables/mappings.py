"""Dicts while tracing, and the method-table behaviour every container kind shares.

:class:`MethodTableMixin` lives with the dicts because a subclass instance's ``__dict__`` is one.
"""

from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import compared_by_identity

from ..errors import Unsupported, UserError, missing_attribute
from ..operand_errors import truth_of, type_name
from .attributes import (
    _MISSING,
    InstanceAttributes,
    builtin_base,
    class_attribute,
    class_function,
    resolve,
    view_of_real,
)
from .base import Variable, members_constant
from .container_tables import DICT_METHODS, IdentityKey, Method, key_variable
from .library_globals import library_global_source
from .method_arity import check_arguments
from .methods import MethodVariable
from .registry import wrap_constant_like
from .specialising import NOT_CONCRETE, concrete, has_symbolic_int
from .symbolic_scalars import SymbolicVariable
from .value_keys import method_key, value_key

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: Dict types whose instances fold to a real instance of the same type with the same items.
_FOLDABLE_DICTS = frozenset({dict, collections.OrderedDict, collections.Counter, collections.defaultdict})


#: ``maker(key, tx)`` → an :class:`IdentityKey` or None, asked last for a key no rule here knows; filled from above.
KEY_MAKERS: list[Any] = []
#: ``watcher(key, tx)``, told of every tensor made a key: the key to use instead, or None (:mod:`.id_keys`: a
#: tensor passed in is hashed as its real id, so its ``id()`` meets it in one dict or set, as in eager).
TENSOR_KEY_WATCHERS: list[Any] = []


def identity_key(key: Variable, tx: InstructionTranslator | None) -> IdentityKey | None:
    """The :class:`IdentityKey` of a tensor, or of an object made while tracing whose class hashes and
    compares by identity; None for anything else. An unhashable value (a list of tensors) is the
    program's TypeError, as in Python."""
    if getattr(key, "unique_identity", False):  # a value unequal to every other (a new hook handle's id)
        return IdentityKey(key, key)
    cls = key.python_type()
    if getattr(cls, "__hash__", None) is None:
        message = f"unhashable type: {cls.__name__!r}"
        raise UserError("dict key", message, exc_type=TypeError, exc_args=(message,))
    example = getattr(key, "example", None)
    if isinstance(example, torch.Tensor) and cls.__hash__ is torch.Tensor.__hash__:
        if key.source is not None:
            # two tensors from outside are distinct keys only while they are distinct objects
            if tx is None:
                raise Unsupported("a tensor from outside the compiled function as a key here", "not modelled")
            tx.output.aliases.relied_on_distinct()
        made = None
        for watcher in TENSOR_KEY_WATCHERS if tx is not None else ():
            made = watcher(key, tx) or made
        return made or IdentityKey(key, example)
    if key.source is None and not getattr(key, "wraps_real_object", False) and key.mutable \
            and cls.__hash__ is object.__hash__ and cls.__eq__ is object.__eq__:
        return IdentityKey(key, key)  # made while tracing: the variable is the object
    # a frozen dataclass made while tracing: hashed by its fields; a bound method: by function and object
    made = value_key(key) or method_key(key)
    if made is None and tx is not None:
        for maker in KEY_MAKERS:  # an object whose class writes __hash__ in Python (see user_hash_keys)
            made = maker(key, tx)
            if made is not None:
                break
    return made


def lookup(receiver: Variable, name: str) -> Method | None:
    """The method-table entry for ``receiver.name``, if the container kind defines it."""
    return receiver.table_method(name) if isinstance(receiver, MethodTableMixin) else None


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
    library_searched: bool = False

    def is_subclass_instance(self) -> bool:
        return self.python_type().__module__ != "builtins" and self.python_type() is not torch.Size

    def mutated(self, tx: InstructionTranslator) -> None:
        """Record that the program changed this container (a dict, list or set): one from outside the
        frame gets its final contents back after the graph, and so does one a trusted library holds as a
        module global (wrapped without a source: see :mod:`.library_globals`)."""
        if self.source is None and not self.library_searched:
            self.library_searched = True  # searched once: a container made in the trace is none
            self.source = library_global_source(tx, self)
        if self.source is not None:
            tx.output.side_effects.mutated_container(self)

    def object_view(self, tx: InstructionTranslator) -> Any:
        if self.real is not None:
            return view_of_real(tx, self, self.real, self.source, getattr(self.real, "__dict__", None))
        return super().object_view(tx)

    def table_method(self, name: str) -> Method | None:
        """This container kind's method-table entry for ``name`` (None: the kind has no such method)."""
        return None

    def container_truth(self, tx: InstructionTranslator, count: int) -> bool:
        """``bool(self)``: a subclass's own ``__bool__`` or ``__len__`` written in Python (CPython asks them in
        that order), else whether the container's ``count`` members are any."""
        cls = self.python_type()
        if cls.__module__ != "builtins":
            for special in ("__bool__", "__len__"):
                method = class_attribute(cls, special)
                if isinstance(method, types.FunctionType):
                    result = self.call_method(tx, special, [], {})
                    if not result.is_python_constant():
                        raise Unsupported(f"{special} of {self.describe()}", "its answer is not known while tracing")
                    return truth_of(special, result.as_python_constant())
                if method is not _MISSING:
                    break  # the builtin's own slot answers
        return count > 0

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if self.is_subclass_instance():
            return self.var_getattr(tx, name).call(tx, args, kwargs)
        return self.call_builtin_method(tx, name, args, kwargs)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """``obj(...)`` of a subclass instance whose class defines ``__call__`` in Python (HuggingFace's
        ``LogitsProcessorList(list)``): inlined with the container as ``self``, looked up on the type as
        CPython does (an instance attribute named ``__call__`` is not consulted)."""
        special = class_attribute(self.python_type(), "__call__") if self.is_subclass_instance() else _MISSING
        if not isinstance(special, types.FunctionType):
            return super().call(tx, args, kwargs)
        return class_function(tx, self.object_view(tx), "__call__", special).call(tx, [self, *args], kwargs)

    def call_builtin_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        """The builtin container's own method, ignoring Python overrides (what ``super()`` reaches)."""
        method = lookup(self, name)
        if method is None:
            raise Unsupported(f"method {name!r} of {self.describe()}", "not modelled")
        check_arguments(builtin_base(self.python_type()), name, args, kwargs)
        return method(tx, self, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if self.is_subclass_instance():
            return resolve(tx, self.object_view(tx), name)
        if name == "__class__":  # object's own descriptor: the exact builtin type
            return wrap_constant_like(self.python_type())
        if lookup(self, name) is None:
            if not hasattr(self.python_type(), name):
                raise missing_attribute(f"{type_name(self.python_type())!r} object", name, obj=self)
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
        """Rebuild a subclass instance made while tracing: ``base.__new__(cls)`` (the builtin's, not a
        ``__new__`` of the class, which may want arguments), then ``fill`` restores its items through the
        builtin base's own methods, then its attributes."""
        cls = self.python_type()
        codegen.load_callable(builtin_base(cls).__new__)
        codegen.load_const(cls)
        codegen.call(1)
        fill(builtin_base(cls))
        self.reconstruct_attributes(codegen)


class DictVariable(MethodTableMixin, Variable):
    """A dict whose keys are known while tracing (constants, or objects hashed by identity)."""

    mutable = True
    #: the only table methods it has (a read-only ``mappingproxy``), or None for all
    only_methods: frozenset | None = None
    #: a read-only view (a ``mappingproxy``): ``|=`` makes a new dict instead of updating it
    read_only = False

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

    def table_method(self, name: str) -> Method | None:
        only = self.only_methods
        return DICT_METHODS.get(name) if only is None or name in only else None

    def as_python_constant(self) -> Any:
        if any(isinstance(k, IdentityKey) for k in self.items):
            return super().as_python_constant()  # a key only the trace holds: not a constant
        items = {k: v.as_python_constant() for k, v in self.items.items()}
        if self.cls is dict:
            return items
        if self.cls is collections.defaultdict:
            return collections.defaultdict(self._default_factory().as_python_constant(), items)
        return self.cls(items)  # OrderedDict, Counter: folded operators and repr() see the real type

    def is_python_constant(self) -> bool:
        if any(isinstance(k, IdentityKey) for k in self.items):
            return False  # a key only the trace holds
        if self.cls not in _FOLDABLE_DICTS:
            return False  # a user subclass: its methods (or attributes) could make a folded copy differ
        if self.cls is collections.defaultdict and not self._default_factory().is_python_constant():
            return False
        return members_constant(self, self.items.values())

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
        return self.container_truth(tx, len(self.items))

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return [key_variable(k) for k in self.items]

    @staticmethod
    def key_of(key: Variable, tx: InstructionTranslator | None = None) -> Any:
        """The Python key a variable stands for: a constant, or an object hashed by identity (an
        :class:`IdentityKey` for one only the trace holds). ``tx`` records, for a tensor from outside,
        that the trace relies on it being distinct from the other keys."""
        if getattr(key, "wraps_real_object", False) and compared_by_identity(key.value):
            pin = getattr(key, "pin_identity", None)
            if pin is not None:  # a module guarded by type: which key it is depends on the very object
                pin()
            return key.value
        if isinstance(key, SymbolicVariable):
            # A size as a memo table's key: the trace specialises on its value (a guard), as
            # torch.compile does, rather than break; a shape likewise.
            return key.as_python_constant()
        if has_symbolic_int(key):
            known = concrete(None, key)
            if known is not NOT_CONCRETE:
                return known
        if key.is_python_constant():
            value = key.as_python_constant()
            try:
                hash(value)
            except TypeError as exc:
                raise UserError("dict key", f"unhashable type: {type(value).__name__!r}", exc_type=TypeError,
                                exc_args=exc.args) from exc
            return value
        identity = identity_key(key, tx)
        if identity is not None:
            return identity
        raise Unsupported("a dict key known only at run time", "keys must be constants while tracing")

    def lookup(self, key: Any) -> Variable | None:
        """The value under Python key ``key``, or None when the dict has no such key."""
        return self.items.get(key)

    def show_attribute(self, name: str, value: Variable | None) -> bool:
        """This dict is an object's ``__dict__``: show the attribute store ``obj.name = value`` (None: ``del
        obj.name``) the trace made, as CPython makes it in the dict (a new name goes last, an old one stays)."""
        if value is None:
            self.items.pop(name, None)
        else:
            self.items[name] = value
        return True

    def has_key(self, key: Any) -> bool:
        """Whether Python key ``key`` is in the dict."""
        return key in self.items

    def getitem(self, tx: InstructionTranslator, key: Variable) -> Variable:
        k = self.key_of(key, tx)
        value = self.lookup(k)
        if value is None:
            if self.cls is not dict and class_attribute(self.cls, "__missing__") is not _MISSING:
                # dict.__getitem__ of a subclass defining __missing__ (defaultdict, Counter) calls it
                return self.var_getattr(tx, "__missing__").call(tx, [key], {})
            raise UserError("dict lookup", f"KeyError: {k!r}", exc_type=KeyError, exc_args=(k,))
        return value

    def setitem(self, tx: InstructionTranslator, key: Variable, value: Variable) -> None:
        self.items[self.key_of(key, tx)] = value
        self.mutated(tx)

    def delitem(self, tx: InstructionTranslator, key: Variable) -> None:
        k = self.key_of(key, tx)
        if k not in self.items:
            raise UserError("dict deletion", f"KeyError: {k!r}", exc_type=KeyError, exc_args=(k,))
        del self.items[k]
        self.mutated(tx)

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:
            codegen.load_source(self.source)
            return
        if self.cls is not dict:
            def fill(base: type) -> None:
                for key, value in self.items.items():
                    codegen.load_callable(base.__setitem__)
                    codegen.emit("COPY", 3)
                    codegen.load_key(key)
                    codegen.reconstruct(value)
                    codegen.call(3)
                    codegen.emit("POP_TOP")

            self.reconstruct_new_instance(codegen, fill)
            return
        for key, value in self.items.items():
            codegen.load_key(key)
            codegen.reconstruct(value)
        codegen.emit("BUILD_MAP", len(self.items))

    def describe(self) -> str:
        return f"dict of {len(self.items)}"

    def __repr__(self) -> str:
        return f"DictVariable({self.items!r})"


class InstanceDictVariable(DictVariable):
    """``obj.__dict__`` of an object made while tracing: the very dict of its attributes."""

    def __init__(self, owner: Variable) -> None:
        super().__init__({})
        self.owner = owner
        self.items = owner.attrs  # shared, so writes through __dict__ are attribute writes

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.owner)
        codegen.emit("LOAD_ATTR", "__dict__")
