"""Real Python objects reached from the frame: instances, classes and modules."""

from __future__ import annotations

import collections
import functools
import types
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr, Const, TypeOf

from .. import polyfills
from ..errors import Unsupported, UserError, missing_attribute
from ..operand_errors import truth_of
from ..policy import trusted_module_name
from ..polyfills.introspection import TYPE_METHODS
from . import autograd_function as _autograd_function
from . import enums as _enums
from . import functions as _functions
from . import iterators as _iterators
from . import real_object_stores as _stores
from . import warnings_blocks as _warnings_blocks
from .attributes import (
    _MISSING,
    _descriptor,
    _guard_absent_from_classes,
    builtin_base,
    class_attribute,
    raw_member_source,
    resolve,
    view_of_real,
)
from .base import RealValueVariable, Variable
from .builtins import HANDLERS, PURE, BuiltinVariable, _items, builtin, call_builtin
from .class_deletions import delete_class_attribute, lookup_class_attribute
from .classmethod_chain import chained_classmethod
from .constant import ConstantVariable, wrap_frozen
from .containers import DictVariable, ListVariable, NamedTupleVariable, SetVariable, TupleVariable
from .ctx import UserExitVariable
from .exception_values import make_exception
from .globals_dict import GlobalsDictVariable
from .immutable_unbound import unbound_immutable_method
from .library_globals import is_library_setting
from .methods import BoundMethodVariable
from .module_globals import delete_module_global, is_root_module, store_module_global
from .new_objects import NewObjectVariable, construct, refuse_abstract
from .partial import make_partial
from .registry import wrap, wrap_constant_like
from .sequences import SizeVariable, TupleSubclassVariable, plain_structseq_class, plain_tuple_subclass
from .slot_errors import object_init_refusal
from .subclass_lists import SubclassesMethodVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


def _trusted(module: types.ModuleType) -> bool:
    return trusted_module_name(getattr(module, "__name__", ""))


def _is_c_type(cls: type) -> bool:
    """A class defined in C, whose attributes cannot be set."""
    return not cls.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE


def _trusted_class(cls: type) -> bool:
    """A builtin class, or one from a library whose attributes are treated as fixed."""
    return trusted_module_name(cls.__module__ or "")


def _instance_dict(value: Any) -> dict | None:
    """``value.__dict__`` when that is its instance dict (on a ``super`` object, ``__dict__`` finds a
    class's descriptor instead)."""
    found = getattr(value, "__dict__", None)
    return found if isinstance(found, dict) else None


def _metaclass_attribute(tx: InstructionTranslator, cls: Variable, found: Any, name: str) -> Variable:
    """``Cls.name`` that only the metaclass defines: a plain value (a registry dict) as it is, a Python
    function bound to the class, a property's Python getter called with the class; other descriptors are not
    modelled."""
    meta = type(cls.value)
    if name == "__subclasses__" and meta is type and cls.source is not None:
        return SubclassesMethodVariable(cls.value, cls.source)  # the live subclasses, guarded
    if meta is type and found is vars(type).get(name) and name in TYPE_METHODS:
        return BoundMethodVariable(_functions.UserFunctionVariable(TYPE_METHODS[name]), cls)  # Cls.mro()
    if name == "__flags__" and found is vars(type)["__flags__"]:
        return ConstantVariable(cls.value.__flags__)  # the type's flags (the class is matched by identity)
    enum_method = meta.__module__ == "enum" and isinstance(found, types.FunctionType)  # Lv.__len__, __getitem__
    if (meta.__module__ in ("builtins", "abc", "enum") and not enum_method) or cls.source is None:
        raise Unsupported(f"attribute {name!r} of {cls.value.__name__}", "it comes from the metaclass")
    if not hasattr(type(found), "__get__"):
        return wrap(tx, found, Attr(cls.source, name))  # read through the class: the metaclass's own object
    if isinstance(found, types.FunctionType):
        return BoundMethodVariable(wrap(tx, found, Attr(TypeOf(cls.source), name)), cls)
    if type(found) is property and isinstance(found.fget, types.FunctionType):
        # a property of the metaclass (``Registry.size``): its getter called with the class, found where the
        # metaclass holds it (read on the metaclass, a property answers itself)
        return wrap(tx, found.fget, Attr(Attr(TypeOf(cls.source), name), "fget")).call(tx, [cls], {})
    raise Unsupported(f"attribute {name!r} of {cls.value.__name__}", f"a {type(found).__name__} of its metaclass")


def _metaclass_getattr(tx: InstructionTranslator, cls: Variable, method: Any, name: str) -> Variable:
    """``Cls.name`` that the class lacks, answered by its metaclass's ``__getattr__`` (inlined)."""
    if not isinstance(method, types.FunctionType):
        raise Unsupported(f"attribute {name!r} of {cls.value.__name__}", "its metaclass's __getattr__ is not Python code")
    source = Attr(TypeOf(cls.source), "__getattr__") if cls.source is not None else None
    handler = wrap(tx, method, source) if source is not None else _functions.UserFunctionVariable(method)
    return handler.call(tx, [cls, ConstantVariable(name)], {})


class UserObjectVariable(RealValueVariable):
    """An instance of a user-defined class: attribute reads are followed, stores are side effects."""

    mutable = True

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        effects = tx.output.side_effects
        # (where the program changed the object's __dict__ itself, the lookup below reads it: view_of_real)
        # a deleted attribute is looked up again: the class and its __getattr__ may still answer
        changed = effects.dict_view(self.value) is not None or effects.attribute_deleted(self.value, name)
        stored = None if changed else effects.stored_attribute(self.value, name)
        if stored is not None:
            return stored
        if name == "__class__":
            return wrap(tx, type(self.value), None)
        return resolve(tx, view_of_real(tx, self, self.value, self.source, _instance_dict(self.value)), name)

    def object_view(self, tx: InstructionTranslator) -> Any:
        """What attribute lookup needs to know about this object."""
        return view_of_real(tx, self, self.value, self.source, _instance_dict(self.value))

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        _stores.store_attr(tx, self, name, value)

    def generic_setattr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``object.__setattr__(self, name, value)`` (from the class's own ``__setattr__``)."""
        _stores.generic_setattr(tx, self, name, value)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        _stores.delete_attr(tx, self, name)

    def generic_delattr(self, tx: InstructionTranslator, name: str) -> None:
        """``object.__delattr__(self, name)`` (from the class's own ``__delattr__``)."""
        _stores.generic_delattr(tx, self, name)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.var_getattr_on_type(tx, "__call__").call(tx, args, kwargs)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if name.startswith("__") and name.endswith("__"):
            return self.var_getattr_on_type(tx, name).call(tx, args, kwargs)
        return self.var_getattr(tx, name).call(tx, args, kwargs)

    def var_getattr_on_type(self, tx: InstructionTranslator, name: str) -> Variable:
        """A special method is looked up on the type, as CPython does."""
        static = class_attribute(type(self.value), name)
        if isinstance(static, (staticmethod, classmethod)):  # bound as the descriptor binds it, the instance aside
            return _descriptor(tx, view_of_real(tx, self, self.value, self.source, None), name, static)
        if not isinstance(static, types.FunctionType):
            raise Unsupported(f"{name} of {type(self.value).__name__}", "not a Python method")
        return resolve(tx, view_of_real(tx, self, self.value, self.source, None), name)

    def truth(self, tx: InstructionTranslator) -> bool:
        cls = type(self.value)
        for special in ("__bool__", "__len__"):
            if class_attribute(cls, special) is not _MISSING:
                result = self.call_method(tx, special, [], {})
                return truth_of(special, result.as_python_constant())
        return True

    def iterate(self, tx: InstructionTranslator) -> Variable:
        """``iter(obj)``: the class's ``__iter__``, inlined."""
        return _iterators.iterate_user_object(tx, self, type(self.value))

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return self.iterate(tx).unpack(tx)

    def enter(self, tx: InstructionTranslator) -> tuple[Variable, Variable]:
        """``with obj:``: inline ``__enter__``; ``__exit__`` runs on the normal exit path."""
        return enter_user_context(tx, self)

    def describe(self) -> str:
        return f"{type(self.value).__name__} object"


#: A class's hierarchy as ``type`` reports it (a metaclass that overrides one is not modelled).
_HIERARCHY = ("__mro__", "__bases__", "__base__")


class ClassVariable(RealValueVariable):
    """A class: attribute reads, ``isinstance`` checks, and calls for the classes the translator knows."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if (stored := lookup_class_attribute(tx, self.value, name, self, of_class=True)) is not None:
            return stored  # assigned (or deleted, the lookup going on past it) earlier in the trace
        if name == "__annotations__" and class_attribute(type(self.value), name) is vars(type).get(name):
            # type's getter makes the class's own (empty) dict on the first read, as eager's read does: made
            # now, before a guard is built on the class dict (which would otherwise not hold on this frame)
            getattr(self.value, name, None)
        static = class_attribute(self.value, name)
        if static is _MISSING:
            if name in ("__name__", "__qualname__", "__module__"):
                # a user class's names can be assigned (``A.__name__ = ...``): guarded, the library's fixed
                owner = None if _trusted_class(self.value) else (self.source or Const(self.value))
                return wrap(tx, getattr(self.value, name), Attr(owner, name) if owner is not None else None)
            if name in _HIERARCHY and class_attribute(type(self.value), name) is class_attribute(type, name):
                # type's own descriptors: the bases and MRO fixed when the class statement ran
                return wrap(tx, getattr(self.value, name), None)
            if name == "__members__" and _enums.reads_members(self.value):
                # enum's own property: a mappingproxy whose keys are guarded where it is read
                return wrap(tx, self.value.__members__, Attr(self.source or Const(self.value), name))
            if (on_meta := class_attribute(type(self.value), name)) is not _MISSING:
                return _metaclass_attribute(tx, self, on_meta, name)
            if not _trusted_class(self.value):
                # Set on the class (or its metaclass) later, it would be found: guard its absence.
                _guard_absent_from_classes(tx, self.value, name)
                _guard_absent_from_classes(tx, type(self.value), name)
            meta_getattr = class_attribute(type(self.value), "__getattr__")
            if meta_getattr is not _MISSING:  # the metaclass answers what the class lacks
                return _metaclass_getattr(tx, self, meta_getattr, name)
            raise missing_attribute(f"type object {self.value.__name__!r}", name)
        if not isinstance(static, types.FunctionType) and (found := polyfills.method_replacement(self.value, name)):
            fn, is_classmethod = found  # a C method written in Python: defaultdict.fromkeys, OrderedDict.move_to_end
            method = _functions.UserFunctionVariable(fn)
            return BoundMethodVariable(method, self) if is_classmethod else method
        owner = self.source
        if owner is None and not _trusted_class(self.value):
            # A class reached without a source (``type(obj)`` of an object made while tracing) is
            # still a real object: its attributes are guarded, and a list it holds is mutated for real.
            owner = Const(self.value)
        source = Attr(owner, name) if owner is not None else None
        if isinstance(static, staticmethod):
            return wrap(tx, static.__func__, source)
        if isinstance(static, classmethod):
            if name == "apply" and _autograd_function.is_function_class(self.value):
                return _autograd_function.AutogradFunctionApplyVariable(self.value, source, owner)
            func_source = Attr(source, "__func__") if source is not None else None
            return chained_classmethod(tx, static, self, lambda: raw_member_source(tx, self.value, owner, name),
                                       lambda: BoundMethodVariable(_functions.UserFunctionVariable(static.__func__, func_source), self))
        if isinstance(static, (types.MethodDescriptorType, types.WrapperDescriptorType)):
            unbound = unbound_immutable_method(self.value, name)  # type(it).__length_hint__(it): it's own method
            return unbound if unbound is not None else wrap(tx, getattr(self.value, name), None)
        if name == "__dict__" and owner is not None:
            return self._class_dict(tx, source)
        getter = getattr(type(static), "__get__", None)
        if isinstance(getter, types.FunctionType) and not isinstance(static, functools.cached_property):
            # a descriptor class written in Python (functools.singledispatchmethod): its __get__(descriptor,
            # None, cls) is inlined, as for an instance; the real read would answer an object made afresh on
            # each read (no guard on it could hold)
            descriptor = wrap(tx, static, raw_member_source(tx, self.value, owner, name))
            return wrap(tx, getter, None).call(tx, [descriptor, ConstantVariable(None), self], {})
        return wrap(tx, getattr(self.value, name), source)

    def _class_dict(self, tx: InstructionTranslator, source: Any) -> Variable:
        """``cls.__dict__`` (``vars(cls)``): a view of the real class dict, which the trace's assignments to the
        class reach only after the graph; the view shows them (those made before it was read, and after)."""
        proxy = wrap(tx, self.value.__dict__, source)  # brought up to date where it is made (object_dicts)
        tx.output.side_effects.exposed_instance_dict(self.value, proxy)
        return proxy

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return call_class(tx, self, args, kwargs)

    def call_meta(self, tx: InstructionTranslator, name: str, args: list[Variable],
                  kwargs: dict[str, Variable]) -> Variable:
        """The metaclass's method ``name`` called on this class (``repr(Registry)``: ``type(Registry).__repr__``,
        which ``Registry.__repr__`` would not find: the class's own attribute, for its instances, comes first)."""
        return _metaclass_attribute(tx, self, class_attribute(type(self.value), name), name).call(tx, args, kwargs)

    def truth(self, tx: InstructionTranslator) -> bool:
        """``bool(cls)``: the metaclass's ``__bool__`` (else ``__len__``) written in Python, traced; else True."""
        for special in ("__bool__", "__len__"):
            if isinstance(class_attribute(type(self.value), special), types.FunctionType):
                return truth_of(special, self.call_meta(tx, special, [], {}).as_python_constant())
        return bool(self.value)  # (a C metaclass's, which reads nothing of the program)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        members = _enums.members(self.value)  # an Enum class: its members, fixed since it was made
        if members is None:
            meta_iter = class_attribute(type(self.value), "__iter__")
            if isinstance(meta_iter, types.FunctionType):  # the metaclass's own __iter__ (``for name in Registry``)
                return _iterators.iterate(tx, self.call_meta(tx, "__iter__", [], {})).unpack(tx)
            return super().unpack(tx)
        return [wrap(tx, member, None) for member in members]

    def _refuse_change(self, name: str, verb: str, hook: str) -> None:
        """The break for changing ``name`` on this class where the trace cannot model it (``hook``: the
        metaclass method doing the change)."""
        cls = self.value
        if _is_c_type(cls) or _trusted_class(cls):
            raise Unsupported(f"{verb} attribute {name!r} of {self.describe()}", "a builtin or library class")
        if class_attribute(type(cls), hook) is not getattr(type, hook):
            raise Unsupported(f"{verb} attribute {name!r} of {self.describe()}", f"its metaclass customises {hook}")
        meta = type(class_attribute(type(cls), name))
        if hasattr(meta, "__set__") or hasattr(meta, "__delete__"):
            raise Unsupported(f"{verb} attribute {name!r} of {self.describe()}", "a descriptor of its metaclass")
        if name.startswith("__") and name.endswith("__"):
            raise Unsupported(f"{verb} {name} of {self.describe()}", "special attributes change how the class behaves")

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``Cls.name = value`` on a user class: replayed after the graph; later reads in the trace, on
        the class, its subclasses and their instances, see ``value``."""
        cls = self.value
        self._refuse_change(name, "assigning", "__setattr__")
        current = class_attribute(cls, name)
        replaces_descriptor = hasattr(type(current), "__get__") and type(current) is not types.FunctionType
        if replaces_descriptor or (value.python_type() is not types.FunctionType and _binds(value)):
            # a property, classmethod or other descriptor binds its own way per lookup: not modelled in the
            # overlay (a plain function, old or new, binds to the instance as a method: instance_method_of)
            raise Unsupported(f"assigning attribute {name!r} of {self.describe()}", "a descriptor other than a function")
        tx.output.side_effects.store_class_attr(self, cls, name, value)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del Cls.name`` on a user class: replayed after the graph; later reads in the trace go on past it
        (:mod:`.class_deletions`)."""
        self._refuse_change(name, "deleting", "__delattr__")
        delete_class_attribute(tx, self, name)

    def describe(self) -> str:
        return f"class {self.value.__qualname__}"


def _binds(value: Variable) -> bool:
    """Whether ``value``, stored on a class, would be a descriptor (its type has ``__get__``); unknown: yes."""
    try:
        return hasattr(value.python_type(), "__get__")
    except Unsupported:
        return True


class PythonModuleVariable(RealValueVariable):
    """A module (``torch``, ``math``, or one of the user's): attribute reads wrap its members."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        effects = tx.output.side_effects
        stored = effects.stored_attribute(self.value, name)
        if stored is not None:
            return stored  # assigned earlier in the trace (sys.stdout = buffer, other_module.flag = True)
        if effects.global_overlay and is_root_module(tx, self.value):
            stored = effects.global_overlay.get(name)  # the frame's own module: its ``global`` stores
            if stored is not None:
                if not isinstance(stored, Variable):
                    # a module's own __getattr__ (PEP 562) may word it otherwise
                    raise missing_attribute(f"module {self.value.__name__!r}", name, exact=False)
                return stored
        if name == "__dict__" and self.source is not None and (
                effects.stored_attributes(self.value) or (effects.global_overlay and is_root_module(tx, self.value))):
            return GlobalsDictVariable(tx, self.value, self.source)  # read by name through the trace's changes
        if self.value is _warnings_blocks.warnings:
            _warnings_blocks.refuse_state_read(tx, name)
        try:
            member = getattr(self.value, name)
        except AttributeError as exc:
            if self.source is not None and not _trusted(self.value):
                # hasattr(module, name) or a getattr default: setting it later must recompile.
                tx.output.guards.add("absent_key", Attr(self.source, "__dict__"), name)
            raise missing_attribute(f"module {self.value.__name__!r}", name, raised=exc) from None
        if _trusted(self.value):
            if is_library_setting(member):  # torch.backends.cudnn.enabled: set at run time, so guarded
                return wrap(tx, member, Attr(self.source or Const(self.value), name))
            return wrap(tx, member, None)
        if self.source is None:
            raise Unsupported(f"attribute {name!r} of module {self.value.__name__}",
                              "the module was not reached from the frame, so its members cannot be guarded")
        found = wrap(tx, member, Attr(self.source, name))
        if name == "__dict__":  # its globals, copied: from now on a store to one of them is a graph break
            effects.exposed_instance_dict(self.value, found)
        return found

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``module.name = value``: on a module built into the interpreter (``sys.stdout = buffer``, as
        ``contextlib.redirect_stdout`` does), an attribute store; on a Python module, a store among its
        globals, which its functions' ``LOAD_GLOBAL`` sees too (:mod:`.module_globals`). Replayed after the
        graph, in program order; later reads in the trace see ``value``."""
        if self.value is _warnings_blocks.warnings:
            _warnings_blocks.refuse_state_read(tx, name, "assigning")
        if _built_in_module(self.value):
            if self.source is None:
                raise Unsupported(f"assigning attribute {name!r} of {self.describe()}", "not modelled")
            tx.output.side_effects.store_attr(self, self.value, name, value)
        else:
            store_module_global(tx, self.value, name, value, self)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del module.name`` on a Python module: a deletion among its globals (an AttributeError where
        the name is missing)."""
        if _built_in_module(self.value):
            raise Unsupported(f"deleting attribute {name!r} of {self.describe()}", "not modelled")
        self.var_getattr(tx, name)  # raises the AttributeError Python raises, guarded as a read
        delete_module_global(tx, self.value, name, self)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if class_attribute(type(self.value), "__call__") is _MISSING:  # ``torch.fft(x)``: Python's TypeError
            message = f"'{type(self.value).__name__}' object is not callable"
            raise UserError(f"calling {self.describe()}", message, exc_type=TypeError, exc_args=(message,))
        return super().call(tx, args, kwargs)

    def describe(self) -> str:
        return f"module {self.value.__name__}"


def _built_in_module(module: types.ModuleType) -> bool:
    """A module compiled into the interpreter (``sys``), not ``builtins``, whose names every frame reads."""
    spec = getattr(module, "__spec__", None)
    return getattr(spec, "origin", None) == "built-in" and module.__name__ != "builtins"


class OpaqueCallableVariable(RealValueVariable):
    """A callable the translator does not model (a method of a C object): it can be passed around,
    but calling it is a graph break, and it runs as ordinary Python."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        name = getattr(self.value, "__qualname__", None) or repr(self.value)
        raise Unsupported(f"call to {name}", "a method of a C object is not modelled", hint="it runs as ordinary Python")

    def describe(self) -> str:
        return f"C method {getattr(self.value, '__qualname__', self.value)}"


def enter_user_context(tx: InstructionTranslator, manager: Variable) -> tuple[Variable, Variable]:
    """BEFORE_WITH on a user object: inline ``__enter__`` now; ``__exit__`` is called on exit."""
    if not isinstance(manager, UserObjectVariable):
        raise Unsupported(f"a with block over {manager.describe()}", "not a context manager the translator models")
    exit_method = manager.var_getattr_on_type(tx, "__exit__")
    entered = manager.call_method(tx, "__enter__", [], {})
    return UserExitVariable(exit_method), entered


# -- builtins that make objects -----------------------------------------------------------------
@builtin(tuple.__new__)
def builtin_tuple_new(tx, args, kwargs):
    """``tuple.__new__(cls, iterable)``: what a named tuple's ``_make`` (and so ``_replace``) calls."""
    if kwargs and args and getattr(args[0], "value", None) is tuple:
        try:  # tuple() takes no keyword arguments: CPython's TypeError, worded by the real call
            tuple.__new__(tuple, **dict.fromkeys(kwargs))
        except TypeError as exc:
            raise UserError("tuple.__new__", str(exc), exc_type=TypeError, exc_args=exc.args) from exc
    if kwargs or not 1 <= len(args) <= 2 or not isinstance(args[0], (ClassVariable, BuiltinVariable)):
        return None
    cls = args[0].value
    items = _items(tx, args[1]) if len(args) == 2 else []
    if cls is tuple:
        return TupleVariable(items)
    if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields"):
        return NamedTupleVariable(items, cls)
    if plain_tuple_subclass(cls):  # super().__new__(cls, items) in the class's __new__
        return TupleSubclassVariable(items, cls, args[0].source)
    return None


def _container_new(owner: type) -> Any:
    """``owner.__new__(cls, ...)`` of a builtin container: an empty ``cls`` instance (dict, list and set
    ignore further arguments, which their ``__init__`` reads; a frozenset takes its members here)."""

    def new(tx, args, kwargs):
        if not args or not isinstance(args[0], (ClassVariable, BuiltinVariable)):  # list.__new__(list)
            return None
        cls = args[0].value
        layout = dict if builtin_base(cls) is collections.OrderedDict else builtin_base(cls)  # OrderedDict's is dict's
        if not isinstance(cls, type) or type(cls) is not type or layout is not owner:
            return None  # not a subclass of owner (Python's TypeError), or another layout: natively
        if cls is owner and kwargs and owner in (set, frozenset):
            return None  # set(x=1): Python's TypeError, natively
        subclass = {"cls": cls, "cls_source": args[0].source} if cls is not owner else {}
        if owner is dict:
            return DictVariable({}, new=True, **subclass)
        if owner is list:
            return ListVariable([], new=True, **subclass)
        items = _iterators.each_item(tx, args[1]) if owner is frozenset and len(args) > 1 else []
        return SetVariable(list(items), frozen=owner is frozenset, tx=tx, **subclass)

    new.__name__ = f"builtin_{owner.__name__}_new"
    return new


for _owner in (dict, list, set, frozenset):
    builtin(_owner.__new__)(_container_new(_owner))


@builtin(object.__new__)
def builtin_object_new(tx, args, kwargs):
    """``object.__new__(cls)`` for a plain class: an empty instance, no ``__init__`` (``copy`` does this). More
    arguments are refused as CPython's ``object_new`` refuses them (unless the class overrides ``__init__`` only)."""
    if not args or not isinstance(args[0], ClassVariable):
        return None
    cls = args[0].value
    if (len(args) > 1 or kwargs) and isinstance(cls, type):
        if cls.__new__ is not object.__new__:
            message = "object.__new__() takes exactly one argument (the type to instantiate)"
        elif class_attribute(cls, "__init__") is object.__init__:
            message = f"{cls.__name__}() takes no arguments"
        else:
            message = None  # the arguments are __init__'s: object.__new__ leaves them
        if message is not None:
            raise UserError("object.__new__()", message, exc_type=TypeError, exc_args=(message,))
    # (called explicitly, it makes the object whatever __new__ the class has: super().__new__(cls) in one;
    # nor does its metaclass take part: no metaclass __call__ runs)
    if not isinstance(cls, type) or builtin_base(cls) is not object:
        return None
    refuse_abstract(cls)
    # its methods are read through the class: a class reached without a source is a constant object
    return NewObjectVariable(cls, args[0].source if args[0].source is not None else Const(cls))


@builtin(object.__init__)
def builtin_object_init(tx, args, kwargs):
    """``object.__init__(obj, ...)`` of an object made while tracing: nothing, or CPython's TypeError for arguments
    (:func:`.slot_errors.object_init_refusal`)."""
    if not args or not isinstance(args[0], NewObjectVariable):
        return None
    refusal = object_init_refusal(args[0].python_type()) if len(args) > 1 or kwargs else None
    if refusal is not None:
        raise refusal
    return ConstantVariable(None)


@builtin(object)
def builtin_object(tx, args, kwargs):
    """``object()``: a new featureless instance (a sentinel), equal only to itself; rebuilt with
    ``object.__new__(object)`` if it outlives the graph."""
    if args or kwargs:
        return None  # object() takes no arguments: Python's TypeError, natively
    return NewObjectVariable(object, Const(object))


@builtin(types.MethodType)
def builtin_method_type(tx, args, kwargs):
    """``types.MethodType(fn, obj)``: ``fn`` bound to ``obj`` (``ExitStack`` binds a manager's ``__exit__`` so)."""
    if kwargs or len(args) != 2 or not callable(getattr(args[0], "value", None)):
        return None
    return BoundMethodVariable(args[0], args[1])


# -- classes called like functions -----------------------------------------------------------------
def call_class(tx: InstructionTranslator, cls_var: Variable, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``cls(*args, **kwargs)`` for the classes the translator models."""
    cls = cls_var.value
    if cls in HANDLERS or cls in PURE:
        return call_builtin(tx, cls, args, kwargs)
    if isinstance(cls, type) and issubclass(cls, BaseException):
        return make_exception(cls, args, kwargs, tx)
    if cls is torch.Size:
        return SizeVariable(_items(tx, args[0]) if args else [])
    if cls is torch.finfo and not args and not kwargs:  # the program's default dtype, which the trace tracks
        return wrap_frozen(torch.finfo(tx.output.default_dtype))
    if cls in (torch.finfo, torch.iinfo) and all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        return wrap_frozen(cls(*(a.as_python_constant() for a in args)))
    if isinstance(cls, type) and issubclass(cls, tuple) and hasattr(cls, "_fields") and _plain_namedtuple(cls):
        return _make_namedtuple(tx, cls, args, kwargs)
    if cls is functools.partial:
        return make_partial(tx, args, kwargs)
    if plain_structseq_class(cls) and len(args) == 1 and not kwargs:
        return _make_structseq(tx, cls, args[0])
    if isinstance(cls, type) and cls.__module__ != "builtins":
        return construct(tx, cls, cls_var.source, args, kwargs)
    raise Unsupported(f"creating a {cls.__qualname__} object", "constructing objects of this class is not modelled",
                      hint="create it outside the compiled function and pass it in")


def _make_structseq(tx: InstructionTranslator, cls: type, sequence: Variable) -> Variable:
    """``torch.return_types.topk(items)`` (what pytree's unflatten calls): a struct sequence of an iterable's items.
    Its C ``__new__`` only checks the length, or refuses the type outright (``sys.version_info``): the real
    type is asked the same with stand-in items, so its TypeError is worded as CPython words it."""
    items = _items(tx, sequence)
    try:
        cls(tuple(range(len(items))))
    except TypeError as exc:
        raise UserError(f"{cls.__name__}()", str(exc), exc_type=TypeError, exc_args=exc.args) from None
    return NamedTupleVariable(items, cls)


def _plain_namedtuple(cls: type) -> bool:
    """Whether ``cls(...)`` runs the ``__new__`` ``collections.namedtuple`` wrote and no ``__init__`` of the user's (a
    subclass overriding either is constructed as other classes are, its own code traced)."""
    made = next((k for k in cls.__mro__ if "_make" in k.__dict__ and "__new__" in k.__dict__), None)
    return made is not None and cls.__new__ is made.__new__ and cls.__init__ is object.__init__


def _make_namedtuple(tx: InstructionTranslator, cls: type, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    fields = cls._fields
    values: dict[str, Variable] = dict(zip(fields, args))
    if len(args) > len(fields):
        raise UserError(f"{cls.__name__}()", f"takes {len(fields)} positional arguments but {len(args)} were given",
                        exc_type=TypeError)
    for key, value in kwargs.items():
        if key not in fields or key in values:
            raise UserError(f"{cls.__name__}()", f"unexpected or repeated argument {key!r}", exc_type=TypeError)
        values[key] = value
    defaults = getattr(cls, "_field_defaults", {})
    for field in fields:
        if field not in values:
            if field not in defaults:
                raise UserError(f"{cls.__name__}()", f"missing argument {field!r}", exc_type=TypeError)

            values[field] = wrap_constant_like(defaults[field])
    return NamedTupleVariable([values[f] for f in fields], cls)
