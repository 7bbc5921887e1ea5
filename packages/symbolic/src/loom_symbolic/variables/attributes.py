"""Attribute lookup on objects while tracing, following Python's rules without running them.

Data descriptors of the class first, then the instance's attributes, then the class's MRO: functions
bind, properties are inlined, static and class methods unwrap, other class attributes are wrapped. A
``__getattribute__`` or ``__getattr__`` written in Python is inlined.

The same rules serve real objects from the frame (their instance ``__dict__`` is read and guarded) and
objects created while tracing (their attributes are variables): an :class:`ObjectView` says which."""

from __future__ import annotations

import collections
import functools
import types
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, DictAttr, Item, TypeOf

from .. import operand_errors, polyfills
from ..errors import Unsupported, UserError, missing_attribute, missing_for_delete
from ..object_dicts import DELETED
from . import class_deletions as _class_deletions
from . import class_lies as _class_lies
from . import class_lookups as _class_lookups
from .base import Variable
from .classmethod_chain import chained_classmethod
from .constant import ConstantVariable
from .functions import UserFunctionVariable
from .methods import BoundMethodVariable, MethodVariable
from .registry import wrap
from .slot_errors import no_attribute_to_set, read_only_to_delete

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


_MISSING = object()


def class_attribute(cls: type, name: str) -> Any:
    """``name`` from ``cls``'s MRO without invoking descriptors, or _MISSING (guarded on user classes while a
    translation runs: :mod:`.class_lookups`)."""
    return _class_lookups.lookup(cls, name, _MISSING)


def kept_slot(cls: type, name: str) -> bool:
    """Whether the trace keeps ``name`` with the other attributes of an instance of ``cls`` made while
    tracing, rebuilt through its descriptor: a ``__slots__`` entry of a Python class of the MRO
    (``inspect.BoundArguments.arguments``), or a C-level attribute polyfilled methods keep."""
    static = class_attribute(cls, name)
    if isinstance(static, types.MemberDescriptorType) and not _is_c_class(static.__objclass__) \
            and static.__objclass__.__module__ != "builtins":
        return True
    return polyfills.modelled_slot(cls, name)


def _unset_slot(cls: type, name: str, slot: Any) -> UserError:
    """Python's AttributeError for reading slot ``name`` never set (3.13 names the class with its
    module: the message is taken from the slot of a probe instance, so ``str(exc)`` is eager's)."""
    message = f"{cls.__name__!r} object has no attribute {name!r}"
    try:
        slot.__get__(object.__new__(cls), cls)
    except AttributeError as exc:
        message = str(exc)
    except Exception:  # a class object.__new__ cannot make: the usual message
        pass
    return UserError(f"attribute {name!r}", message, exc_type=AttributeError, exc_args=(message,))


def _module_getattr() -> Any:
    """``nn.Module.__getattr__``: it only finds parameters, buffers and submodules, which the
    translator reads from the module's tables itself; anything else is a missing attribute."""
    import torch

    return torch.nn.Module.__getattr__


def has_custom_getattribute(cls: type) -> bool:
    """Whether ``cls`` overrides attribute lookup (builtin classes' own slots are the generic lookup)."""
    for klass in cls.__mro__:
        if "__getattribute__" in klass.__dict__:
            # (defaultdict's is the generic lookup, exposed as a slot wrapper of its own)
            return klass.__module__ != "builtins" and not polyfills.has_methods(klass)
    return False


@dataclass
class ObjectView:
    """What attribute lookup needs to know about one object."""

    receiver: Variable
    cls: type
    #: How to reach the class from the frame (guards on methods found there), or None.
    type_source: Any
    #: The instance's own attribute ``name`` as a variable, or _MISSING.
    instance: Callable[[str], Any]
    #: The real object, when it exists outside the trace (slots and C properties are read from it).
    real: Any = _MISSING
    source: Any = None


def view_of_real(tx: InstructionTranslator, receiver: Variable, value: Any, source: Any,
                 instance_dict: dict | None) -> ObjectView:
    """The view of a real object reached through ``source``."""

    effects = tx.output.side_effects

    def instance(name: str) -> Any:
        changed = effects.dict_view(value)
        if changed is not None:  # the program changed the object's __dict__ itself: it holds the attributes
            found = changed.lookup(name)
            return _MISSING if found is None else found
        if effects.stored_attributes(value):  # what the trace stored there so far
            if effects.attribute_deleted(value, name):
                return _MISSING  # the read goes on to the class, then to its __getattr__, as Python's
            stored = effects.stored_attribute(value, name)
            if stored is not None:
                return stored
        if instance_dict is None:
            return _MISSING
        if name not in instance_dict:
            if source is not None:
                # The lookup goes on to the class; an instance attribute set later would shadow it.
                tx.output.guards.add("absent_key", Attr(source, "__dict__"), name)
            return _MISSING
        return wrap(tx, instance_dict[name], Attr(source, name) if source is not None else None)

    type_source = TypeOf(source) if source is not None else None
    return ObjectView(receiver, type(value), type_source, instance, value, source)


#: Whether an exception out of inlined code is the program's AttributeError (:mod:`.exception_values` adds one)
ATTRIBUTE_ERROR_TESTS: list[Callable[[Exception], bool]] = [
    lambda exc: isinstance(exc, UserError) and issubclass(exc.exc_type, AttributeError)]


def resolve(tx: InstructionTranslator, view: ObjectView, name: str) -> Variable:
    """``obj.name``, honouring a ``__getattribute__`` written in Python."""
    if _is_c_class(view.cls) and view.real is not _MISSING and not hasattr(view.receiver, "call_builtin_method"):
        # (a C dict subclass, defaultdict or OrderedDict, is a dict here: its methods are dict's, or polyfilled)
        return _c_object_attribute(tx, view, name)
    if has_custom_getattribute(view.cls):
        hook = class_attribute(view.cls, "__getattribute__")
        if not isinstance(hook, types.FunctionType):
            raise Unsupported(f"attribute {name!r} of {view.cls.__name__}", "the class customises __getattribute__ in C")
        try:
            return class_function(tx, view, "__getattribute__", hook).call(tx, [view.receiver, ConstantVariable(name)], {})
        except Exception as exc:  # CPython's slot_tp_getattr_hook drops an AttributeError for __getattr__
            fallback = class_attribute(view.cls, "__getattr__")
            if fallback is _MISSING or not any(test(exc) for test in ATTRIBUTE_ERROR_TESTS):
                raise
            if not isinstance(fallback, types.FunctionType):
                raise Unsupported(f"attribute {name!r} of {view.cls.__name__}", "a __getattr__ in C") from exc
            return class_function(tx, view, "__getattr__", fallback).call(tx, [view.receiver, ConstantVariable(name)], {})
    return generic_getattr(tx, view, name)


def generic_getattr(tx: InstructionTranslator, view: ObjectView, name: str) -> Variable:
    """``object.__getattribute__(obj, name)``: Python's default lookup, without custom hooks."""
    static = class_attribute(view.cls, name)
    effects = tx.output.side_effects
    if name in effects.class_attribute_names and (stored := effects.stored_class_attribute(view.cls, name)) is not None:
        # the trace assigned it on the class (never a descriptor but a function, see ClassVariable.store_attr)
        found = view.instance(name)
        if found is not _MISSING:
            return found
        if stored is DELETED:  # deleted from the class: the lookup goes on past it
            stored = _class_deletions.after_deletion(tx, view.cls, name, view.receiver, of_class=False)
        if stored.python_type() is types.FunctionType:
            return BoundMethodVariable(stored, view.receiver)  # a function bound to the instance, as CPython does
        return stored
    kind = type(static)
    # A data descriptor wins over the instance dict only if it has __get__ (CPython's generic getattr
    # calls tp_descr_get; a __set__-only descriptor leaves reads to the instance dict).
    is_data_descriptor = static is not _MISSING and hasattr(kind, "__get__") and (hasattr(kind, "__set__")
                                                                                  or hasattr(kind, "__delete__"))
    if is_data_descriptor:
        return _descriptor(tx, view, name, static)
    found = view.instance(name)
    if found is not _MISSING:
        return found
    if static is not _MISSING:
        return _descriptor(tx, view, name, static)
    if view.real is not _MISSING and view.source is not None:
        _guard_absent_from_classes(tx, view.cls, name)
    fallback = class_attribute(view.cls, "__getattr__")
    # A module from the frame has its tables read by the translator itself (NNModuleVariable); one made
    # while tracing keeps its parameters in a ``_parameters`` variable, which Module.__getattr__ reads.
    if fallback is not _MISSING and (fallback is not _module_getattr() or view.real is _MISSING):
        # one in C too: `__getattr__ = dict.get` is the dict's own lookup, modelled unbound
        return class_function(tx, view, "__getattr__", fallback).call(tx, [view.receiver, ConstantVariable(name)], {})
    # Python's generic lookup fails with its own message (the C class of a stand-in), ``name`` and ``obj`` set
    shown = view.receiver.python_type() if getattr(view.receiver, "stands_for", None) else view.cls
    raise missing_attribute(f"{operand_errors.type_name(shown)!r} object", name, obj=view.receiver)


def store_through_descriptor(tx: InstructionTranslator, receiver: Variable, cls: type, type_source: Any,
                             name: str, value: Variable) -> bool:
    """``obj.name = value`` when ``cls`` has a data descriptor ``name``: a property's setter is inlined
    (True: done). False: the value goes to the instance (no descriptor, or a slot); other descriptors
    are not modelled."""

    static = class_attribute(cls, name)
    if isinstance(static, property):
        if static.fset is None:
            raise UserError(f"setting {name!r}", f"property {name!r} of {cls.__name__!r} object has no setter",
                            exc_type=AttributeError)
        setter_source = Attr(Attr(type_source, name), "fset") if type_source is not None else None
        wrap(tx, static.fset, setter_source).call(tx, [receiver, value], {})
        return True
    setter = getattr(type(static), "__set__", None)
    if isinstance(setter, types.FunctionType):  # a descriptor class of the user's: inline its __set__
        # the descriptor itself, from the class's __dict__: ``type(obj).name`` would run its __get__
        descriptor = wrap(tx, static, raw_member_source(tx, cls, type_source, name))
        wrap(tx, setter, None).call(tx, [descriptor, receiver, value], {})
        return True
    if setter is not None and not isinstance(static, types.MemberDescriptorType):
        raise Unsupported(f"setting {name!r} on a {cls.__name__}", f"a {type(static).__name__} descriptor")
    return False


def delete_through_descriptor(tx: InstructionTranslator, receiver: Variable, cls: type, type_source: Any,
                              name: str) -> bool:
    """``del obj.name`` when ``cls`` has a data descriptor ``name`` written in Python: a property's deleter, or
    the ``__delete__`` of a descriptor class of the user's, inlined (True: done; False: not such a one)."""
    static = class_attribute(cls, name)
    descriptor_source = Attr(type_source, name) if type_source is not None else None
    if isinstance(static, property) and isinstance(static.fdel, types.FunctionType):
        deleter_source = Attr(descriptor_source, "fdel") if descriptor_source is not None else None
        wrap(tx, static.fdel, deleter_source).call(tx, [receiver], {})
        return True
    deleter = getattr(type(static), "__delete__", None)
    if isinstance(deleter, types.FunctionType):
        descriptor = wrap(tx, static, raw_member_source(tx, cls, type_source, name))  # not through its __get__
        wrap(tx, deleter, None).call(tx, [descriptor, receiver], {})
        return True
    return False


def _guard_absent_from_classes(tx: InstructionTranslator, cls: type, name: str) -> None:
    """``name`` is on no class of ``cls``'s MRO (the object's type is guarded): one written there later
    would be found instead of the missing attribute or ``__getattr__``."""

    for klass in cls.__mro__:
        if klass.__module__ != "builtins":
            tx.output.guards.add("absent_key", Attr(Const(klass), "__dict__"), name)


def _is_c_class(cls: type) -> bool:
    """A class implemented in C (deque, Random, ...): its instances are opaque to the translator."""
    # Immutable heap types are C classes too (3.12 made deque one); no class statement makes one.
    return (not cls.__flags__ & _HEAPTYPE or cls.__flags__ & _IMMUTABLETYPE) and cls.__module__ != "builtins"


_HEAPTYPE = 1 << 9
_IMMUTABLETYPE = 1 << 8


def _real_instance_dict(tx: InstructionTranslator, view: ObjectView) -> Variable:
    """``obj.__dict__`` of a real object (a user class's instance, or a C one's: ``SimpleNamespace``): the real
    dict as the trace's attribute stores leave it (they are replayed after the graph), kept so from now on
    (:meth:`~..side_effects.SideEffects.exposed_instance_dict`)."""
    effects = tx.output.side_effects
    known = effects.dict_view(view.real)
    if known is not None:
        return known  # the dict the program changed: it holds what the object's attributes are
    # shows the trace's earlier stores where it is made (object_dicts), or breaks there
    value = wrap(tx, view.real.__dict__, Attr(view.source, "__dict__") if view.source is not None else None)
    # Attribute reads of an instance of a class written in Python find a dict the program changed
    # (view_of_real); a C class's attributes are read from the real object, so its dict must not change.
    effects.exposed_instance_dict(view.real, value, live=not _is_c_class(view.cls))
    return value


def _c_object_attribute(tx: InstructionTranslator, view: ObjectView, name: str) -> Variable:
    """An attribute of an instance of a C class: read for real (guarded); methods break when called."""
    if name == "__dict__" and isinstance(getattr(view.real, "__dict__", None), dict):
        return _real_instance_dict(tx, view)
    if tx.output.side_effects.dict_view(view.real) is not None:
        raise Unsupported(f"attribute {name!r} of a {view.cls.__name__} whose __dict__ the trace changed",
                          "a C class's attributes are read from the real object")
    try:
        value = getattr(view.real, name)
    except AttributeError as exc:
        if view.source is not None and isinstance(getattr(view.real, "__dict__", None), dict):
            tx.output.guards.add("absent_key", Attr(view.source, "__dict__"), name)  # set later: recompile
        raise missing_attribute(f"{view.cls.__name__!r} object", name, raised=exc) from None
    return wrap(tx, value, Attr(view.source, name) if view.source is not None else None)


def _class_source(tx: InstructionTranslator, view: ObjectView, name: str) -> Any:
    if view.type_source is not None and _class_lies.metaclass_data_descriptor(type(view.cls), name):
        return raw_member_source(tx, view.cls, view.type_source, name)  # the metaclass's answers cls.name
    return Attr(view.type_source, name) if view.type_source is not None else None


def raw_member_source(tx: InstructionTranslator, cls: type, type_source: Any, name: str) -> Any:
    """Where the descriptor ``name`` of ``cls`` (found through ``type_source``) sits in its class's ``__dict__``
    (``cls.name`` would run its ``__get__`` with no instance, which may answer another object: torch's
    ``lazy_property``). Classes before it in the MRO are guarded not to gain the name."""
    if type_source is None:
        return None
    for index, klass in enumerate(cls.__mro__):
        if name in vars(klass):
            return DictAttr(type_source if index == 0 else Item(Attr(type_source, "__mro__"), index), name)
        tx.output.guards.add("absent_key", Attr(Const(klass), "__dict__"), name)
    return None


def class_function(tx: InstructionTranslator, view: ObjectView, name: str, fn: types.FunctionType) -> Variable:
    """``fn``, found as ``name`` on the class of ``view``, wrapped with the source it was found through (so it
    is guarded by identity: a hook replaced on the class later fails the guard)."""
    return wrap(tx, fn, _class_source(tx, view, name))


def _c_getter(fget: Any) -> bool:
    """Whether a property's getter is a pybind11 one (``instancemethod`` around C++): the translator cannot
    step into it, and only C++ state it reads. (A builtin such as ``len`` is traced on the receiver: the
    trace may have changed the object it would read.)"""
    return type(fget).__name__ == "instancemethod" and type(fget).__module__ == "builtins"


def _descriptor(tx: InstructionTranslator, view: ObjectView, name: str, static: Any) -> Variable:
    class_source = _class_source(tx, view, name)
    if isinstance(static, types.FunctionType):
        # Wrapped with its class source, so the method is guarded by identity: a method replaced on
        # the class later fails the guard instead of running the traced one.
        return BoundMethodVariable(wrap(tx, static, class_source), view.receiver)
    if isinstance(static, property):
        if static.fget is None:
            # worded differently per Python version: never formatted by the trace
            raise UserError(f"attribute {name!r}", f"property {name!r} has no getter", exc_type=AttributeError)
        if _c_getter(static.fget) and view.real is not _MISSING:
            # a getter in C (a pybind11 property): read the real attribute, guarded as a C-level slot is
            return wrap(tx, getattr(view.real, name), Attr(view.source, name) if view.source is not None else None)
        getter_source = Attr(class_source, "fget") if class_source is not None else None
        return wrap(tx, static.fget, getter_source).call(tx, [view.receiver], {})
    if isinstance(static, staticmethod):
        # the class attribute read (type(X).name) already unwraps the staticmethod: that is the function
        return wrap(tx, static.__func__, class_source)
    if isinstance(static, classmethod):
        cls_var = wrap(tx, view.cls, view.type_source)
        func_source = None if class_source is None else Attr(class_source, "__func__")
        return chained_classmethod(tx, static, cls_var, lambda: raw_member_source(tx, view.cls, view.type_source, name),
                                   lambda: BoundMethodVariable(wrap(tx, static.__func__, func_source), cls_var))
    if isinstance(static, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        if name == "__class__":
            if getattr(view.receiver, "stands_for", None) is not None:  # deque's stand-in is a deque
                return wrap(tx, view.receiver.python_type(), None)
            return wrap(tx, view.cls, view.type_source)
        if name == "__dict__" and view.real is _MISSING and hasattr(view.receiver, "attrs"):
            return view.receiver.instance_dict()
        if view.real is _MISSING and kept_slot(view.cls, name):  # a __slots__ entry, defaultdict.default_factory
            found = view.instance(name)
            if found is _MISSING:  # a slot never set
                raise _unset_slot(view.cls, name, static)
            return found
        if view.real is _MISSING and name == "__weakref__":  # None until weakref.ref(obj) makes its one reference
            return getattr(view.receiver, "_loom_weak_reference", None) or ConstantVariable(None)
        if view.real is _MISSING:
            raise Unsupported(f"attribute {name!r} of a {view.cls.__name__} made while tracing",
                              "slots and C-level attributes of new objects are not modelled")
        if name == "__dict__":
            return _real_instance_dict(tx, view)
        if isinstance(static, types.MemberDescriptorType) and tx.output.side_effects.attribute_deleted(view.real, name):
            raise _unset_slot(view.cls, name, static)  # the trace emptied the slot: the real one is emptied later
        # Slots and C-level properties: read the real attribute (it is guarded like any other).
        try:
            value = getattr(view.real, name)
        except AttributeError:
            # a slot never set (or a C getter refusing): no guard can hold "still unset", so it runs as Python
            raise Unsupported(f"attribute {name!r} of a {view.cls.__name__} that raises AttributeError",
                              "an unset slot's emptiness is not guarded") from None
        except Exception as exc:  # a C getter raising (an empty cell's cell_contents): Python raises it, natively
            raise Unsupported(f"attribute {name!r} of a {view.cls.__name__}", f"reading it raises {type(exc).__name__}") from None
        return wrap(tx, value, Attr(view.source, name) if view.source is not None else None)
    if isinstance(static, (types.MethodDescriptorType, types.WrapperDescriptorType, types.BuiltinFunctionType,
                           types.ClassMethodDescriptorType)):
        replacement = polyfills.method_replacement(view.cls, name)
        if replacement is not None:  # a C class's method written in Python (defaultdict.__missing__)
            fn, is_classmethod = replacement
            bound_to = wrap(tx, view.cls, view.type_source) if is_classmethod else view.receiver
            return BoundMethodVariable(UserFunctionVariable(fn), bound_to)
        if isinstance(static, types.ClassMethodDescriptorType):
            raise Unsupported(f"class method {name!r} of {view.cls.__name__}", "a C class method")
        return _builtin_method(tx, view, name)
    if type(static) is functools._lru_cache_wrapper:  # an lru_cache'd method: bound like its function
        return BoundMethodVariable(wrap(tx, static, class_source), view.receiver)
    if type(static) is functools.cached_property and static.attrname == name and view.real is not _MISSING:
        # not cached yet (the instance dict would have won): the function's value, stored in the instance
        # dict as cached_property.__get__ stores it, through the store overlay (replayed after the graph)
        func_source = Attr(class_source, "func") if class_source is not None else None
        value = wrap(tx, static.func, func_source).call(tx, [view.receiver], {})
        tx.output.side_effects.store_attr(view.receiver, view.real, name, value, generic=True)
        return value
    if type(static) is functools.cached_property and static.attrname == name and view.cls.__dictoffset__ \
            and hasattr(view.receiver, "generic_setattr"):
        # an object made in the trace: the value goes to its instance dict, past any __setattr__ of the class
        func_source = Attr(class_source, "func") if class_source is not None else None
        value = wrap(tx, static.func, func_source).call(tx, [view.receiver], {})
        view.receiver.generic_setattr(tx, name, value)
        return value
    getter = getattr(type(static), "__get__", None)
    if isinstance(getter, types.FunctionType) and not isinstance(static, functools.cached_property):
        # a descriptor class written in Python (the user's): its __get__(descriptor, obj, type) is
        # inlined, as store_through_descriptor inlines its __set__. (cached_property writes the
        # instance's __dict__, which the trace does not change in place: modelled above.)
        owner = wrap(tx, view.cls, view.type_source)
        descriptor = wrap(tx, static, raw_member_source(tx, view.cls, view.type_source, name))
        return wrap(tx, getter, None).call(tx, [descriptor, view.receiver, owner], {})
    if getter is not None:
        raise Unsupported(f"attribute {name!r} of {view.cls.__name__}", f"a {type(static).__name__} descriptor")
    return wrap(tx, static, class_source)


def _builtin_method(tx: InstructionTranslator, view: ObjectView, name: str) -> Variable:
    """A method of a builtin base class (dict.get on a dict subclass): the container models it."""
    if hasattr(view.receiver, "call_builtin_method"):
        return MethodVariable(view.receiver, name, builtin=True)
    for maker in OBJECT_METHOD_MAKERS:  # object.__eq__ of an object made while tracing (object_slot_methods)
        if (made := maker(tx, view, name)) is not None:
            return made
    raise Unsupported(f"method {name!r} of {view.cls.__name__}", "a C method of a Python object")


#: ``maker(tx, view, name)`` → the variable of ``object``'s own method ``name`` bound to the object, or None
OBJECT_METHOD_MAKERS: list[Callable[..., Variable | None]] = []


# -- object.__getattribute__ and object.__setattr__ --------------------------------------------
class GenericGetattrVariable(Variable):
    """``object.__getattribute__`` bound to an object: the default attribute lookup."""

    def __init__(self, receiver: Variable) -> None:
        self.receiver = receiver

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        name = args[0].as_python_constant()
        return generic_getattr(tx, self.receiver.object_view(tx), name)


# -- objects made while tracing -----------------------------------------------------------------
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


class InstanceAttributes:
    """Attribute semantics of an instance made while tracing: ``attrs`` holds its ``__dict__`` (user-class
    instances, and instances of container subclasses, inherit it)."""

    attrs: dict[str, Variable]
    cls: type
    cls_source: Any

    def object_view(self, tx: InstructionTranslator) -> ObjectView:
        """What attribute lookup needs: the class, where it comes from, and the attributes so far."""
        return ObjectView(self, self.cls, self.cls_source, lambda name: self.attrs.get(name, _MISSING))

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        hook = class_attribute(self.cls, "__setattr__")
        if hook is not object.__setattr__:  # one in Python is inlined; `__setattr__ = dict.__setitem__` modelled too
            wrap(tx, hook, _class_member_source(self, "__setattr__")).call(tx, [self, ConstantVariable(name), value], {})
            return
        self.generic_setattr(tx, name, value)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        hook = class_attribute(self.cls, "__delattr__")
        if hook is not object.__delattr__:  # as __setattr__: `__delattr__ = dict.__delitem__` deletes an item
            wrap(tx, hook, _class_member_source(self, "__delattr__")).call(tx, [self, ConstantVariable(name)], {})
            return
        self.generic_delattr(tx, name)

    def generic_delattr(self, tx: InstructionTranslator, name: str) -> None:
        """``object.__delattr__(self, name)``: modelled for objects made while tracing (:class:`InstanceMixin`)."""
        raise Unsupported(f"deleting {name!r} on {self.describe()}", "not modelled")

    def generic_setattr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``object.__setattr__(self, name, value)``: a property setter, or the instance dict."""
        if getattr(self, "real", None) is not None:  # a container subclass's instance from outside the frame
            generic_setattr_on_real(tx, self, self.real, self.source, name, value)
            return
        slot = kept_slot(self.cls, name)
        if isinstance(class_attribute(self.cls, name), types.MemberDescriptorType) and not slot:
            raise Unsupported(f"setting {name!r} on a {self.cls.__name__} made while tracing", "slots are not modelled")
        if slot or not store_through_descriptor(tx, self, self.cls, self.cls_source, name, value):
            if not slot and not self.cls.__dictoffset__:  # __slots__ all the way down: no instance dict
                raise no_attribute_to_set(self.cls, name)
            self.attrs[name] = value

    def reconstruct_attributes(self, codegen: PyCodegen) -> None:
        """With the object on top of the stack, restore its ``__dict__`` (leaves the object there)."""
        if not self.attrs:
            return
        in_dict = {}
        for key, value in self.attrs.items():
            if kept_slot(self.cls, key):
                # a slot: set through its descriptor by object.__setattr__, not STORE_ATTR, which
                # would run a __setattr__ of the class (a frozen dataclass's raises)
                codegen.load_callable(object.__setattr__)
                codegen.emit("COPY", 3)
                codegen.load_const(key)
                codegen.reconstruct(value)
                codegen.call(3)
                codegen.emit("POP_TOP")
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


def generic_setattr_on_real(tx: InstructionTranslator, receiver: Variable, real: Any, source: Any, name: str,
                            value: Variable) -> None:
    """``object.__setattr__(real, name, value)`` on an object from outside the frame (``super().__setattr__``
    in a class overriding ``__setattr__``): recorded, and replayed through ``object.__setattr__`` itself,
    not the class's override, which the trace already ran."""
    cls = type(real)
    if isinstance(class_attribute(cls, name), types.MemberDescriptorType):
        raise Unsupported(f"setting {name!r} on a {cls.__name__} from outside", "slots are not modelled")
    if not store_through_descriptor(tx, receiver, cls, TypeOf(source), name, value):
        if not cls.__dictoffset__ and not isinstance(class_attribute(cls, name), types.MemberDescriptorType):
            raise no_attribute_to_set(cls, name)  # no __dict__: Python raises now, not at the replay
        tx.output.side_effects.store_attr(receiver, real, name, value, generic=True)


def _class_member_source(instance: InstanceAttributes, name: str) -> Any:
    return Attr(instance.cls_source, name) if instance.cls_source is not None else None


class InstanceMixin(InstanceAttributes):
    """A user-class instance made while tracing: attribute reads follow Python's rules, and ``del``."""

    def instance_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        return resolve(tx, self.object_view(tx), name)

    def generic_delattr(self, tx: InstructionTranslator, name: str) -> None:
        slot = kept_slot(self.cls, name)
        if hasattr(type(class_attribute(self.cls, name)), "__delete__") and not slot:
            if delete_through_descriptor(tx, self, self.cls, self.cls_source, name):
                return
            raise Unsupported(f"deleting {name!r} on a {self.cls.__name__}", "a descriptor of the class handles it")
        if name not in self.attrs:
            if slot:  # deleting an unset slot: the slot's own AttributeError, the bare name
                raise UserError(f"deleting {name!r}", name, exc_type=AttributeError, exc_args=(name,))
            if not self.cls.__dictoffset__ and class_attribute(self.cls, name) is not _MISSING:
                raise read_only_to_delete(self.cls, name)  # no instance dict, a plain class attribute
            raise missing_for_delete(f"{self.cls.__name__!r} object", name)
        del self.attrs[name]
