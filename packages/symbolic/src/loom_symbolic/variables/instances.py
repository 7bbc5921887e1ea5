"""Instances of user classes created while tracing (``Cache(config)``, dataclasses, ``ModelOutput``).

Creating one runs no real code: the translator makes a variable for the new object, inlines the
class's ``__init__`` (and anything it calls), and tracks the object's attributes as variables. An
object that outlives the graph is rebuilt in the rewritten bytecode without calling ``__init__`` again:
``cls.__new__(cls)``, then its attributes (and, for dict subclasses, its items) are restored directly.
"""

from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr

from .. import polyfills
from .._late import LateModule
from ..errors import Unsupported, UserError, missing_attribute
from .registry import wrap
from .attributes import _MISSING, ObjectView, class_attribute, resolve, store_through_descriptor
from .base import Variable
from .constant import ConstantVariable
from .containers import DictVariable, ListVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from ..translator import InstructionTranslator

# Read only while translating, and in an import cycle with this module: imported at first read (see _late.py).
_ctx = LateModule("loom_symbolic.variables.ctx", globals(), "_ctx")
_functions = LateModule("loom_symbolic.variables.functions", globals(), "_functions")
_iterators = LateModule("loom_symbolic.variables.iterators", globals(), "_iterators")

#: Builtin bases an instance made while tracing may have, and how its builtin part is modelled.
_CONTAINER_BASES = (collections.OrderedDict, dict, list)


def builtin_base(cls: type) -> type:
    """The builtin (C) base class whose layout ``cls``'s instances have."""
    for klass in cls.__mro__:
        if klass in _CONTAINER_BASES or klass is object:
            return klass
        if klass.__module__ == "builtins":
            return klass
    return object


class InstanceMixin:
    """Attribute semantics of a user-class instance made while tracing: ``attrs`` holds its ``__dict__``."""

    attrs: dict[str, Variable]
    cls: type
    cls_source: Any

    def object_view(self, tx: InstructionTranslator) -> ObjectView:
        """What attribute lookup needs: the class, where it comes from, and the attributes so far."""
        return ObjectView(self, self.cls, self.cls_source, lambda name: self.attrs.get(name, _MISSING))

    def instance_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        return resolve(tx, self.object_view(tx), name)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        hook = class_attribute(self.cls, "__setattr__")
        if isinstance(hook, types.FunctionType):
            wrap(tx, hook, _class_member_source(self, "__setattr__")).call(tx, [self, ConstantVariable(name), value], {})
            return
        self.generic_setattr(tx, name, value)

    def generic_setattr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``object.__setattr__(self, name, value)``: a property setter, or the instance dict."""
        if isinstance(class_attribute(self.cls, name), types.MemberDescriptorType) and not polyfills.modelled_slot(
            self.cls, name
        ):
            raise Unsupported(f"setting {name!r} on a {self.cls.__name__} made while tracing", "slots are not modelled")
        if not store_through_descriptor(tx, self, self.cls, self.cls_source, name, value):
            self.attrs[name] = value

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        if class_attribute(self.cls, "__delattr__") not in (object.__delattr__, dict.__delattr__, list.__delattr__):
            raise Unsupported(f"deleting {name!r} on a {self.cls.__name__}", "the class customises __delattr__")
        if hasattr(type(class_attribute(self.cls, name)), "__delete__"):
            raise Unsupported(f"deleting {name!r} on a {self.cls.__name__}", "a descriptor of the class handles it")
        if name not in self.attrs:
            raise missing_attribute(f"{self.cls.__name__!r} object", name)
        del self.attrs[name]

    def reconstruct_attributes(self, codegen: PyCodegen) -> None:
        """With the object on top of the stack, restore its ``__dict__`` (leaves the object there)."""
        if not self.attrs:
            return
        in_dict = {}
        for key, value in self.attrs.items():
            if polyfills.modelled_slot(self.cls, key):  # a C-level attribute: set through its descriptor
                codegen.emit("COPY", 1)
                codegen.reconstruct(value)
                codegen.emit("SWAP", 2)
                codegen.emit("STORE_ATTR", key)
            else:
                in_dict[key] = value
        if not in_dict:
            return
        codegen.emit("COPY", 1)
        codegen.emit("LOAD_ATTR", "__dict__")
        codegen.emit("LOAD_METHOD", "update")
        for key, value in in_dict.items():
            codegen.load_const(key)
            codegen.reconstruct(value)
        codegen.emit("BUILD_MAP", len(in_dict))
        codegen.call(1)
        codegen.emit("POP_TOP")


def _class_member_source(instance: InstanceMixin, name: str) -> Any:
    return Attr(instance.cls_source, name) if instance.cls_source is not None else None


class NewObjectVariable(InstanceMixin, Variable):
    """An instance of a plain Python class, created while tracing."""

    mutable = True

    def __init__(self, cls: type, cls_source: Any) -> None:
        self.cls = cls
        self.cls_source = cls_source
        self.attrs: dict[str, Variable] = {}
        # An instance of a polyfill class standing in for a C class (deque) is that class to the
        # program (type(), isinstance) and becomes one when it leaves the trace.
        self.stands_for = polyfills.real_class_of(cls)

    def python_type(self) -> type:
        return self.cls if self.stands_for is None else self.stands_for[0]

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        return self.instance_getattr(tx, name)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if name.startswith("__") and name.endswith("__"):
            special = class_attribute(self.cls, name)
            if not isinstance(special, types.FunctionType):
                raise Unsupported(f"{name} of {self.cls.__name__}", "not a Python method")

            return wrap(tx, special, _class_member_source(self, name)).call(tx, [self, *args], kwargs)
        return self.var_getattr(tx, name).call(tx, args, kwargs)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.call_method(tx, "__call__", args, kwargs)

    def truth(self, tx: InstructionTranslator) -> bool:
        for special in ("__bool__", "__len__"):
            if class_attribute(self.cls, special) is not _MISSING:
                return bool(self.call_method(tx, special, [], {}).as_python_constant())
        return True

    def iterate(self, tx: InstructionTranslator) -> Variable:
        """``iter(obj)``: the class's ``__iter__``, inlined."""
        return _iterators.iterate_user_object(tx, self, self.cls)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return self.iterate(tx).unpack(tx)

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        exit_method = self.var_getattr(tx, "__exit__")
        entered = self.call_method(tx, "__enter__", [], {})
        return _ctx.UserExitVariable(exit_method), entered

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.stands_for is not None:
            codegen.load_callable(self.stands_for[1])
        codegen.load_callable(object.__new__)
        codegen.load_const(self.cls)
        codegen.call(1)
        self.reconstruct_attributes(codegen)
        if self.stands_for is not None:
            codegen.call(1)

    def describe(self) -> str:
        return f"{self.python_type().__name__} object made while tracing"


def construct(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
              kwargs: dict[str, Variable]) -> Variable:
    """``cls(*args, **kwargs)`` for a user class: a new instance, its ``__init__`` inlined."""

    if class_attribute(type(cls), "__call__") is not type.__call__:
        raise Unsupported(f"creating a {cls.__qualname__} object",
                          f"its metaclass {type(cls).__name__} customises instance creation")
    base = builtin_base(cls)
    if cls.__new__ is not base.__new__:
        modelled = next((k for k in cls.__mro__[1:] if isinstance(polyfills.replacement_for(k), type)), None)
        if modelled is not None:  # class Ring(deque): the stand-in models deque's own instances only
            raise Unsupported(f"creating a {cls.__qualname__} object",
                              f"a subclass of {modelled.__module__}.{modelled.__qualname__} is not modelled "
                              f"(only {modelled.__qualname__} itself is)")
        raise Unsupported(f"creating a {cls.__qualname__} object", "the class defines __new__")
    if base is object:
        instance: Variable = NewObjectVariable(cls, cls_source)
    elif base in (dict, collections.OrderedDict):
        instance = DictVariable({}, cls=cls, cls_source=cls_source, new=True)
    elif base is list:
        instance = ListVariable([], cls=cls, cls_source=cls_source, new=True)
    else:
        raise Unsupported(f"creating a {cls.__qualname__} object", f"instances of {base.__name__} subclasses are not modelled")
    init = class_attribute(cls, "__init__")
    if isinstance(init, types.FunctionType):
        init_source = Attr(cls_source, "__init__") if cls_source is not None else None
        result = wrap(tx, init, init_source).call(tx, [instance, *args], kwargs)
        if not (result.is_python_constant() and result.as_python_constant() is None):
            raise UserError(f"{cls.__name__}.__init__", "__init__() should return None", exc_type=TypeError)
    elif init is object.__init__:
        if args or kwargs:
            raise UserError(f"{cls.__name__}()", f"{cls.__name__}() takes no arguments", exc_type=TypeError)
    elif base is not object and init is base.__init__:
        if args or kwargs:
            instance.call_builtin_method(tx, "update" if base is not list else "extend", args, kwargs)
    elif (replacement := polyfills.method_replacement(cls, "__init__")) is not None:  # defaultdict's
        result = _functions.UserFunctionVariable(replacement[0]).call(tx, [instance, *args], kwargs)
    else:
        raise Unsupported(f"creating a {cls.__qualname__} object", f"its __init__ is a {type(init).__name__}")
    return instance


class InstanceDictVariable(DictVariable):
    """``obj.__dict__`` of an object made while tracing: the very dict of its attributes."""

    def __init__(self, owner: Variable) -> None:
        super().__init__({})
        self.owner = owner
        self.items = owner.attrs  # shared, so writes through __dict__ are attribute writes

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.owner)
        codegen.emit("LOAD_ATTR", "__dict__")
