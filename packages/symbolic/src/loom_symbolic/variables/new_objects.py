"""Instances of user classes created while tracing (``Cache(config)``, dataclasses, ``ModelOutput``).

Creating one runs no real code: the translator makes a variable for the new object, inlines the
class's ``__init__`` (and anything it calls), and tracks the object's attributes as variables. An
object that outlives the graph is rebuilt in the rewritten bytecode without calling ``__init__`` again:
``cls.__new__(cls)``, then its attributes (and, for dict subclasses, its items) are restored directly.
"""

from __future__ import annotations

import collections
import enum
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, DictAttr, TypeOf

from .. import polyfills
from ..errors import Unsupported, UserError
from ..operand_errors import truth_of
from ..policy import opaque_module, opaque_reason
from ..polyfills import subclasses as _subclasses
from . import ctx as _ctx
from . import enums as _enums
from . import functions as _functions
from . import iterators as _iterators
from . import slotted_instance_dicts as _slotted_dicts
from . import warnings_blocks as _warnings_blocks
from .attributes import (
    _MISSING,
    InstanceMixin,
    _class_member_source,
    _descriptor,
    builtin_base,
    class_attribute,
    kept_slot,
)
from .base import Variable
from .containers import DictVariable, InstanceDictVariable, ListVariable, SetVariable
from .registry import wrap
from .sequences import TupleSubclassVariable, plain_tuple_subclass

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: Library classes whose instances are modelled by a constructor of their own, ``maker(tx, args, kwargs)``
#: (``nn.Parameter``, ``RemovableHandle``): filled by the modules above, consulted by :func:`construct`.
CONSTRUCTORS: dict[type, Any] = {}


def _has_python_slots(cls: type) -> bool:
    """Whether a Python class of ``cls``'s MRO declares ``__slots__`` naming more than ``__dict__``/``__weakref__``."""
    for klass in cls.__mro__:
        slots = klass.__dict__.get("__slots__", ()) if klass.__module__ != "builtins" else ()
        names = (slots,) if isinstance(slots, str) else slots
        if any(n not in ("__dict__", "__weakref__") for n in names):
            return True
    return False


class NewObjectVariable(InstanceMixin, Variable):
    """An instance of a plain Python class, created while tracing."""

    #: the dict the program assigned as its ``__dict__`` (``obj.__dict__ = d``): its attributes' very storage
    assigned_dict: Variable | None = None

    def instance_dict(self) -> Variable:
        """``self.__dict__``: the dict of its attributes (less the slots' values, where its class has slots)."""
        if self.assigned_dict is not None:
            return self.assigned_dict
        if _has_python_slots(self.cls) or any(kept_slot(self.cls, name) for name in self.attrs):
            return _slotted_dicts.SlottedInstanceDictVariable(self)
        return InstanceDictVariable(self)

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
            if isinstance(special, (staticmethod, classmethod)):  # on the type, bound as the descriptor binds it
                return _descriptor(tx, self.object_view(tx), name, special).call(tx, args, kwargs)
            if type(special) is property and isinstance(special.fget, types.FunctionType):
                # a special method that is a property (``__getitem__ = property(...)``): CPython's slot reads it
                # off the object (the getter runs) and calls what it gives
                member = _class_member_source(self, name)
                getter = wrap(tx, special.fget, Attr(member, "fget") if member is not None else None)
                return getter.call(tx, [self], {}).call(tx, args, kwargs)
            if not isinstance(special, types.FunctionType):
                raise Unsupported(f"{name} of {self.cls.__name__}", "not a Python method")

            return wrap(tx, special, _class_member_source(self, name)).call(tx, [self, *args], kwargs)
        return self.var_getattr(tx, name).call(tx, args, kwargs)

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.stands_for is None and class_attribute(self.cls, "__call__") is _MISSING:  # CPython's TypeError
            message = f"'{self.cls.__name__}' object is not callable"
            raise UserError(f"calling a {self.cls.__name__}", message, exc_type=TypeError, exc_args=(message,))
        return self.call_method(tx, "__call__", args, kwargs)

    def truth(self, tx: InstructionTranslator) -> bool:
        for special in ("__bool__", "__len__"):
            if class_attribute(self.cls, special) is not _MISSING:
                return truth_of(special, self.call_method(tx, special, [], {}).as_python_constant())
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

    def generic_setattr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``obj.__dict__ = d`` of a dict made in the trace, on an object of a plain class: ``d`` becomes the
        storage of its attributes (writes through either show in both, ``vars(obj) is d``); other stores as usual."""
        if name == "__dict__" and type(value) is DictVariable and value.python_type() is dict and value.source is None \
                and value.real is None and self.stands_for is None and self.cls.__dictoffset__ \
                and not _has_python_slots(self.cls) and all(type(k) is str for k in value.items):
            self.attrs = value.items
            self.assigned_dict = value
            return
        super().generic_setattr(tx, name, value)

    def reconstruct_attributes(self, codegen: PyCodegen) -> None:
        if self.assigned_dict is None:
            super().reconstruct_attributes(codegen)
            return
        codegen.emit("COPY", 1)  # obj.__dict__ = the dict (rebuilt once, as every name holding it sees)
        codegen.reconstruct(self.assigned_dict)
        codegen.emit("SWAP", 2)
        codegen.emit("STORE_ATTR", "__dict__")

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.stands_for is not None:
            if self.stands_for[1] is None:
                raise Unsupported(f"rebuilding {self.describe()}",
                                  f"a {self.stands_for[0].__qualname__} made while tracing cannot be recreated outside it")
            codegen.load_callable(self.stands_for[1])
        codegen.load_callable(object.__new__)
        codegen.load_const(self.cls)
        codegen.call(1)
        self.reconstruct_attributes(codegen)
        if self.stands_for is not None:
            codegen.call(1)

    def describe(self) -> str:
        return f"{self.python_type().__name__} object made while tracing"


def _shadow(tx: InstructionTranslator, cls: type, modelled: type) -> type:
    """The shadow class (:mod:`..polyfills.subclasses`) of ``cls``, a subclass of C class ``modelled``. The
    shadow copies the namespaces of ``cls``'s Python classes as they are now: each entry is guarded to stay
    the same object, and each namespace to keep its names (a method added or replaced later recompiles)."""
    guards = tx.output.guards
    for klass, namespace in _subclasses.namespaces(cls, modelled):
        space = Attr(Const(klass), "__dict__")
        guards.add("dict_keys", space, tuple(namespace))
        for name, value in namespace.items():
            if name not in ("__dict__", "__weakref__", "__doc__", "__module__", "__qualname__"):
                guards.add("identity", DictAttr(Const(klass), name), value)
    return _subclasses.shadow_class(cls, modelled)


def _new_frozenset(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
                   kwargs: dict[str, Variable]) -> SetVariable:
    """``frozenset.__new__(cls, iterable)`` for a subclass that keeps frozenset's ``__new__`` (which leaves a
    subclass's keyword arguments to its ``__init__``)."""
    if len(args) > 1:
        message = f"{cls.__name__} expected at most 1 argument, got {len(args)}"
        raise UserError(f"{cls.__name__}()", message, exc_type=TypeError, exc_args=(message,))
    members = _iterators.each_item(tx, args[0]) if args else []
    return SetVariable(list(members), frozen=True, cls=cls, cls_source=cls_source, tx=tx)


def _new_tuple(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
               kwargs: dict[str, Variable]) -> TupleSubclassVariable:
    """``tuple.__new__(cls, iterable)`` for a plain subclass that keeps tuple's ``__new__``."""
    if len(args) > 1 or kwargs:
        message = f"{cls.__name__} expected at most 1 argument, got {len(args) + len(kwargs)}"
        if kwargs:
            message = f"{cls.__name__}() takes no keyword arguments"
        raise UserError(f"{cls.__name__}()", message, exc_type=TypeError, exc_args=(message,))
    items = _iterators.each_item(tx, args[0]) if args else []
    return TupleSubclassVariable(list(items), cls, cls_source)


#: ``(accepts(cls), maker)`` for class families whose instances a C base outside ``builtins`` makes (tensor
#: subclasses: :mod:`.subclass_construction`), asked before the builtin base is: ``maker(tx, cls, cls_source,
#: args, kwargs)`` gives the new object, its ``__init__`` run, or raises Unsupported.
FAMILY_MAKERS: list[tuple[Callable[[type], bool], Callable[..., Variable]]] = []

#: builtin base -> maker of a new instance of a subclass keeping the base's ``__new__``, its value given to
#: that ``__new__`` (filled by the module modelling the base's subclasses: :mod:`.str_subclasses`)
BASE_MAKERS: dict[type, Callable[..., Variable]] = {}


def construct(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
              kwargs: dict[str, Variable], metaclass_call: bool = True) -> Variable:
    """``cls(*args, **kwargs)`` for a user class: a new instance, its ``__init__`` inlined. ``metaclass_call``
    False: ``type.__call__`` itself (a metaclass's ``__call__`` calling ``super().__call__``)."""
    maker = CONSTRUCTORS.get(cls)
    if maker is not None:
        return maker(tx, args, kwargs)

    meta_call = class_attribute(type(cls), "__call__")
    if meta_call is not type.__call__ and metaclass_call:
        if not hasattr(type(meta_call), "__get__"):
            # a plain callable stored on the metaclass, called unbound: TypedDict's ``__call__ = dict``
            return wrap(tx, meta_call, None).call(tx, args, kwargs)
        if all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            values = [a.as_python_constant() for a in args]
            member = _enums.lookup(cls, values, kwargs)
            if member is not _enums.MISSING:  # Mode(1): the member, fixed since the class was made
                return wrap(tx, member, None)
            options = {k: v.as_python_constant() for k, v in kwargs.items()}
            made = _enums.functional_class(cls, values, options, tx.f_globals.get("__name__", "__main__"))
            if made is not None:  # Enum("Mode", "TRAIN EVAL"): a class, made once, while tracing
                return wrap(tx, made, None)
        if (new := _enums.new_by_value(cls, args, kwargs)) is not None:
            # a user's _missing_ may answer: enum's own Python __new__, inlined, asks it as enum does
            return wrap(tx, new, None).call(tx, [wrap(tx, cls, cls_source), *args], {})
        if isinstance(meta_call, types.FunctionType) and not isinstance(cls, enum.EnumMeta):
            # a metaclass's own __call__ (a registry, a singleton): inlined with the class as its first argument
            call = wrap(tx, meta_call, Attr(TypeOf(cls_source), "__call__")) if cls_source is not None \
                else _functions.UserFunctionVariable(meta_call)
            return call.call(tx, [wrap(tx, cls, cls_source), *args], kwargs)
        raise Unsupported(f"creating a {cls.__qualname__} object",
                          f"its metaclass {type(cls).__name__} customises instance creation")
    if cls is _warnings_blocks.CATCH_WARNINGS and (made := _warnings_blocks.make_catch_warnings(tx, args, kwargs)):
        return made  # its block made after the graph, in program order
    family = opaque_module(cls)
    if family is not None and class_attribute(cls, "__enter__") is not _MISSING:
        # warnings.catch_warnings: the block changes process state the translator cannot follow
        # instruction by instruction; the break is here, once, and the rest of the frame runs as it is.
        error = Unsupported(f"a {family}.{cls.__qualname__} block", opaque_reason(family),
                            hint="the rest of the function runs as ordinary Python")
        error.reason.rest_as_is = True
        raise error
    for accepts, family_maker in FAMILY_MAKERS:
        if accepts(cls):
            return family_maker(tx, cls, cls_source, args, kwargs)
    base = builtin_base(cls)
    if cls.__new__ is not base.__new__:
        modelled = _subclasses.modelled_base(cls)
        refusal = modelled and _subclasses.shadow_refusal(cls, modelled)
        if modelled is not None and refusal is None:  # class Ring(deque): an object of its shadow class
            instance = NewObjectVariable(_shadow(tx, cls, modelled), None)
            return _initialised(tx, cls, cls_source, base, instance, args, kwargs, own_new=False)
        if modelled is not None:  # one the shadow cannot model: the stand-in models deque's own instances only
            error = Unsupported(f"creating a {cls.__qualname__} object",
                                f"this subclass of {modelled.__module__}.{modelled.__qualname__} is not modelled: "
                                f"{refusal}",
                                hint="the object and the rest of the function run as ordinary Python")
            # every later use of the object would break again (its C methods are opaque): one break, here
            error.reason.rest_as_is = True
            raise error
        instance = _python_new(tx, cls, cls_source, base, args, kwargs)
        if not issubclass(instance.python_type(), cls):
            return instance  # Python runs no __init__ on an object of another class
        return _initialised(tx, cls, cls_source, base, instance, args, kwargs, own_new=True)
    if base is object:
        refuse_abstract(cls)
        instance: Variable = NewObjectVariable(cls, cls_source)
    elif base in (dict, collections.OrderedDict):
        instance = DictVariable({}, cls=cls, cls_source=cls_source, new=True)
    elif base is list:
        instance = ListVariable([], cls=cls, cls_source=cls_source, new=True)
    elif base is set:
        instance = SetVariable([], cls=cls, cls_source=cls_source)
    elif base is frozenset:  # its members come with frozenset.__new__, before any __init__
        instance = _new_frozenset(tx, cls, cls_source, args, kwargs)
    elif plain_tuple_subclass(cls):  # its items come with tuple.__new__, before any __init__
        instance = _new_tuple(tx, cls, cls_source, args, kwargs)
    elif base in BASE_MAKERS:  # its value comes with the base's __new__ (a str subclass's text)
        instance = BASE_MAKERS[base](tx, cls, cls_source, args, kwargs)
    else:
        raise Unsupported(f"creating a {cls.__qualname__} object", f"instances of {base.__name__} subclasses are not modelled")
    return _initialised(tx, cls, cls_source, base, instance, args, kwargs, own_new=False)


def refuse_abstract(cls: type) -> None:
    """Raise the TypeError ``object.__new__(cls)`` raises for a class with abstract methods left (``abc``).

    Only ``object``'s ``__new__`` checks (a dict subclass with abstract methods is made): callers make an
    instance with it. The message, which differs between Python versions, is CPython's own."""
    if not getattr(cls, "__abstractmethods__", None):
        return
    try:
        object.__new__(cls)  # allocates nothing else and runs no Python code: only to raise as Python does
    except TypeError as error:
        raise UserError(f"{cls.__name__}()", str(error), exc_type=TypeError, exc_args=error.args) from None


def plain_metaclass(cls: type) -> bool:
    """Whether ``cls``'s metaclass makes instances as ``type`` does (``type`` itself, ``abc.ABCMeta``)."""
    return type(cls) is type or class_attribute(type(cls), "__call__") is type.__call__


def _python_new(tx: InstructionTranslator, cls: type, cls_source: Any, base: type, args: list[Variable],
                kwargs: dict[str, Variable]) -> Variable:
    """``cls.__new__(cls, *args, **kwargs)`` written in Python (it calls ``super().__new__(cls)``), inlined."""
    new = class_attribute(cls, "__new__")
    if (base not in (object, dict, collections.OrderedDict, list, set, *BASE_MAKERS) and not plain_tuple_subclass(cls)
            and not _named_tuple_without_init(cls)) \
            or not isinstance(new, staticmethod) \
            or not isinstance(new.__func__, types.FunctionType):
        raise Unsupported(f"creating a {cls.__qualname__} object", "the class defines __new__")
    new_source = Attr(cls_source, "__new__") if cls_source is not None else None  # the function itself
    cls_variable = wrap(tx, cls, cls_source)
    return wrap(tx, new.__func__, new_source).call(tx, [cls_variable, *args], kwargs)


def _named_tuple_without_init(cls: type) -> bool:
    """A named tuple subclass whose own ``__new__`` (``super().__new__(cls, lo, hi)``: the fields' own, then
    ``tuple.__new__``) makes its instances, and no ``__init__`` writes attributes after it."""
    return issubclass(cls, tuple) and hasattr(cls, "_fields") and cls.__init__ is object.__init__


def _initialised(tx: InstructionTranslator, cls: type, cls_source: Any, base: type, instance: Variable,
                 args: list[Variable], kwargs: dict[str, Variable], own_new: bool) -> Variable:
    """``instance`` after the ``__init__`` Python calls on a new ``cls`` object."""
    init = class_attribute(cls, "__init__")
    if isinstance(init, types.FunctionType):
        init_source = Attr(cls_source, "__init__") if cls_source is not None else None
        result = wrap(tx, init, init_source).call(tx, [instance, *args], kwargs)
        if not (result.is_python_constant() and result.as_python_constant() is None):
            message = f"__init__() should return None, not '{result.python_type().__name__}'"
            raise UserError(f"{cls.__name__}.__init__", message, exc_type=TypeError, exc_args=(message,))
    elif init is object.__init__:
        if (args or kwargs) and base not in (frozenset, tuple, *BASE_MAKERS) and not own_new:  # object.__init__ leaves them to a __new__
            message = f"{cls.__name__}() takes no arguments"  # CPython names the type by its tp_name
            raise UserError(f"{cls.__name__}()", message, exc_type=TypeError, exc_args=(message,))
    elif base is not object and init is base.__init__:
        if args or kwargs:
            # a dict's __init__ words its own arity errors (OrderedDict's differ from its update's)
            name = "extend" if base is list else "__init__" if issubclass(base, dict) else "update"
            instance.call_builtin_method(tx, name, args, kwargs)
    elif (replacement := polyfills.method_replacement(cls, "__init__")) is not None:  # defaultdict's
        result = _functions.UserFunctionVariable(replacement[0]).call(tx, [instance, *args], kwargs)
    elif type(init) is property and isinstance(init.fget, types.FunctionType):
        # ``__init__ = property(getter)``: type.__call__ reads it off the instance (the getter runs, and may raise),
        # then calls what it gave
        getter_source = Attr(Attr(cls_source, "__init__"), "fget") if cls_source is not None else None
        bound = wrap(tx, init.fget, getter_source).call(tx, [instance], {})
        result = bound.call(tx, args, kwargs)
        if not (result.is_python_constant() and result.as_python_constant() is None):
            raise Unsupported(f"creating a {cls.__qualname__} object", "its __init__ property gave a call returning a value")
    else:
        raise Unsupported(f"creating a {cls.__qualname__} object", f"its __init__ is a {type(init).__name__}")
    return instance
