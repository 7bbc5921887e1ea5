"""``super()`` while tracing: attribute lookup that starts after a class in the MRO."""

from __future__ import annotations

import collections
import types
from typing import TYPE_CHECKING

from loom_guards import Attr, Item, TypeOf

from .. import polyfills
from ..errors import Unsupported, UserError, missing_attribute
from . import constant as _constant
from . import exception_values as _exceptions
from . import functions as _functions
from .attributes import GenericGetattrVariable
from .base import Variable
from .builtins import HANDLERS, builtin
from .containers import ListVariable
from .generic_attribute_methods import GenericDelattrVariable, GenericSetattrVariable
from .iterators import DictIterator, ListIterator
from .methods import BoundMethodVariable
from .new_objects import construct
from .registry import wrap
from .slot_errors import object_init_refusal

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator



#: Builtin classes whose methods a container variable models when reached through super().
_CONTAINER_BASES = (dict, list, tuple, set, collections.OrderedDict)


class SuperVariable(Variable):
    """``super(cls, obj)``: methods found after ``cls`` in ``type(obj).__mro__``, bound to ``obj``."""

    def __init__(self, cls: type, receiver: Variable) -> None:
        self.cls = cls
        self.receiver = receiver

    def python_type(self) -> type:
        return super

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        receiver_type = self.receiver.python_type()
        mro = receiver_type.__mro__
        start = mro.index(self.cls) + 1
        for index in range(start, len(mro)):
            klass = mro[index]
            if name not in klass.__dict__:
                continue
            found = klass.__dict__[name]
            type_source = _type_source(tx, self.receiver)
            klass_source = Item(Attr(type_source, "__mro__"), index) if type_source is not None else None
            member_source = Item(Attr(klass_source, "__dict__"), name) if klass_source is not None else None
            if found is object.__getattribute__:
                return GenericGetattrVariable(self.receiver)
            if found is object.__setattr__:
                return GenericSetattrVariable(self.receiver)
            if found is object.__delattr__:
                return GenericDelattrVariable(self.receiver)
            modelled = getattr(self.receiver, "super_methods", None)
            if modelled and isinstance(found, types.FunctionType) and found in modelled:
                return _ModelledMethod(self.receiver, modelled[found])
            if klass in _CONTAINER_BASES and hasattr(self.receiver, "call_builtin_method"):
                return _BuiltinContainerMethod(self.receiver, name)
            if found is object.__init__:
                return _NoOpInit(self.receiver)
            replacement = polyfills.method_replacement(klass, name)
            if replacement is not None:  # a polyfilled C method (defaultdict.__init__ of a subclass)
                bound_to = wrap(tx, receiver_type, type_source) if replacement[1] else self.receiver
                return BoundMethodVariable(_functions.UserFunctionVariable(replacement[0]), bound_to)
            if isinstance(found, types.FunctionType):
                return BoundMethodVariable(_functions.UserFunctionVariable(found, member_source), self.receiver)
            if isinstance(found, property) and found.fget is not None:
                return wrap(tx, found.fget, Attr(member_source, "fget") if member_source else None).call(
                    tx, [self.receiver], {}
                )
            if isinstance(found, staticmethod):
                return wrap(tx, found.__func__, Attr(member_source, "__func__") if member_source else None)
            if isinstance(found, classmethod):
                owner = wrap(tx, receiver_type, type_source)
                func = _functions.UserFunctionVariable(found.__func__, Attr(member_source, "__func__") if member_source else None)
                return BoundMethodVariable(func, owner)
            if _plain_member(found):
                return _plain_class_attribute(tx, name, found, member_source)
            raise Unsupported(f"super().{name}", f"a {type(found).__name__} found through super() is not modelled")
        raise missing_attribute("'super' object", name)

    def describe(self) -> str:
        return f"super({self.cls.__name__})"


class MetaclassSuperVariable(SuperVariable):
    """``super()`` in a metaclass's method, whose receiver is a class: ``type``'s own ``__call__`` (a
    metaclass's ``__call__`` making the instance as ``type`` does) and the Python functions of the
    metaclasses after ``cls``, bound to the class."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        mro = type(self.receiver.value).__mro__
        for index in range(mro.index(self.cls) + 1, len(mro)):
            klass = mro[index]
            found = klass.__dict__.get(name, _MISSING_MEMBER)
            if found is _MISSING_MEMBER:
                continue
            if found is type.__call__:
                return _TypeCall(self.receiver)
            if isinstance(found, types.FunctionType) and klass.__module__ not in ("builtins", "abc", "enum"):
                source = self.receiver.source
                member = Item(Attr(Item(Attr(TypeOf(source), "__mro__"), index), "__dict__"), name) if source else None
                return BoundMethodVariable(wrap(tx, found, member) if member else _functions.UserFunctionVariable(found),
                                           self.receiver)
            break
        raise Unsupported(f"super().{name} in metaclass {self.cls.__name__}", "not modelled")


class _TypeCall(Variable):
    """``type.__call__`` bound to a class, reached through ``super()`` in its metaclass's ``__call__``: the
    class's instance made as ``type`` makes it (``__new__``, then ``__init__``)."""

    def __init__(self, cls: Variable) -> None:
        self.cls = cls

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return construct(tx, self.cls.value, self.cls.source, args, kwargs, metaclass_call=False)

    def describe(self) -> str:
        return f"type.__call__ of {self.cls.value.__name__}"


@builtin(type.__call__)
def builtin_type_call(tx, args, kwargs):
    """``type.__call__(cls, *args)`` called by name (a metaclass's ``__call__`` handing over to type's): the instance
    made as ``type`` makes it, past the metaclass's own ``__call__``."""
    cls = getattr(args[0], "value", None) if args and getattr(args[0], "wraps_real_object", False) else None
    if not isinstance(cls, type) or cls.__module__ == "builtins":
        return None
    return _TypeCall(args[0]).call(tx, args[1:], kwargs)


def _plain_class_attribute(tx: InstructionTranslator, name: str, found, source) -> Variable:
    """``super().name`` for a value without ``__get__`` defined on ``klass``: the value itself, guarded
    through ``type(obj).__mro__[i].__dict__[name]``. Without that source only an immutable scalar (a
    container wrapped afresh would lose the mutations made through it)."""
    if name in tx.output.side_effects.class_attribute_names:  # the trace assigned ``name`` on some class
        raise Unsupported(f"super().{name}", "the trace assigned this name on a class: the lookup is not modelled")
    if source is None and type(found) not in _SCALARS:
        raise Unsupported(f"super().{name}", f"a {type(found).__name__} class attribute with no source to guard")
    return wrap(tx, found, source)


_SCALARS = (int, float, bool, str, bytes, complex, type(None))


class _BuiltinContainerMethod(Variable):
    """``super().name`` on a subclass of dict/list/set: the builtin container's own method."""

    def __init__(self, receiver: Variable, name: str) -> None:
        self.receiver = receiver
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if self.name == "__iter__" and not args and not kwargs:  # the builtin's own iteration, no override
            receiver = self.receiver
            return ListIterator(receiver) if isinstance(receiver, ListVariable) else DictIterator(receiver)
        if self.name == "__len__" and not args and not kwargs:
            items = getattr(self.receiver, "items", None)
            return _constant.ConstantVariable(len(items if items is not None else self.receiver.values))
        return self.receiver.call_builtin_method(tx, self.name, args, kwargs)


class _ModelledMethod(Variable):
    """``super().name`` where the receiver's variable models that inherited method itself (its
    ``super_methods``: ``nn.Module.__setattr__`` on a module)."""

    def __init__(self, receiver: Variable, method) -> None:
        self.receiver = receiver
        self.method = method

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.method(self.receiver, tx, args, kwargs)


class _NoOpInit(Variable):
    """``object.__init__`` reached through super(): it does nothing, but refuses arguments as CPython's
    ``object_init`` does (where the object's class overrides ``__init__``, or keeps ``object.__new__`` too)."""

    def __init__(self, receiver: Variable | None = None) -> None:
        self.receiver = receiver

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if (args or kwargs) and self.receiver is not None:
            refusal = object_init_refusal(self.receiver.python_type())
            if refusal is not None:
                raise refusal
        return _constant.ConstantVariable(None)


#: ``(accepts(receiver), maker(cls, receiver))`` for receivers of a kind with a ``super()`` of its own (a tensor
#: subclass's tensor: :mod:`.tensor_super`), asked before the generic object's.
RECEIVER_MAKERS: list = []


def make_super(tx: InstructionTranslator, args: list[Variable]) -> Variable:
    """``super()`` (zero arguments, from the ``__class__`` cell) or ``super(cls, obj)``."""
    if args:
        if len(args) != 2:
            raise Unsupported("super() with one argument", "not modelled")
        cls, receiver = args[0].as_python_constant(), args[1]
        _refuse_unrelated(cls, receiver)
    else:
        if "__class__" not in tx.cells or not tx.code.co_varnames:
            raise Unsupported("super()", "no __class__ cell or no first argument")
        cls = tx.cells["__class__"].load(tx).as_python_constant()
        first = tx.code.co_varnames[0]
        receiver = tx.cells[first].load(tx) if first in tx.cells else tx.read_local(first)
    if isinstance(receiver, _exceptions.ExceptionVariable):
        return ExceptionSuperVariable(cls, receiver)
    klass = getattr(receiver, "value", None)
    if isinstance(klass, type) and isinstance(cls, type) and receiver.python_type() is not klass and issubclass(klass, cls):
        return ClassSuperVariable(cls, receiver)
    if isinstance(klass, type) and isinstance(cls, type) and issubclass(cls, type) and isinstance(klass, cls):
        return MetaclassSuperVariable(cls, receiver)
    for accepts, maker in RECEIVER_MAKERS:
        if accepts(receiver):
            return maker(cls, receiver)
    if not hasattr(receiver, "object_view"):
        raise Unsupported(f"super() on {receiver.describe()}", "not an object the translator models")
    return SuperVariable(cls, receiver)


def _refuse_unrelated(cls: object, receiver: Variable) -> None:
    """``super(cls, obj)`` whose ``obj`` is neither an instance nor a subclass of ``cls``: CPython's TypeError (its
    message taken from the same call on a stand-in object of a class of the same name, which runs nothing)."""
    if not isinstance(cls, type) or (receiver.is_python_constant() and isinstance(receiver.as_python_constant(), type)):
        return
    try:
        kind = receiver.python_type()
    except Unsupported:
        return
    if isinstance(kind, type) and not issubclass(kind, cls) and not issubclass(kind, type):
        try:
            super(cls, type(kind.__name__, (), {})())
        except TypeError as exc:
            raise UserError("super()", str(exc), exc_type=TypeError, exc_args=exc.args) from exc


class ExceptionSuperVariable(SuperVariable):
    """``super()`` inside a user exception class's methods, on an exception made while tracing."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        mro = self.receiver.python_type().__mro__
        for klass in mro[mro.index(self.cls) + 1:]:
            if name not in klass.__dict__:
                continue
            found = klass.__dict__[name]
            if klass.__module__ == "builtins" and name == "__init__":
                return _exceptions.ExceptionInit(self.receiver)
            if isinstance(found, types.FunctionType):
                return BoundMethodVariable(_functions.UserFunctionVariable(found), self.receiver)
            break
        raise Unsupported(f"super().{name} in {self.cls.__name__}", "not modelled on an exception made while tracing")



class ClassSuperVariable(SuperVariable):
    """``super(cls, klass)`` with a class as second argument (a custom autograd Function's static
    ``forward`` calling its base's): what the MRO of ``klass`` finds after ``cls``, bound to ``klass``."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        klass = self.receiver.value
        mro = klass.__mro__
        for index in range(mro.index(self.cls) + 1, len(mro)):
            found = mro[index].__dict__.get(name, _MISSING_MEMBER)
            if found is _MISSING_MEMBER:
                continue
            replacement = polyfills.method_replacement(mro[index], name)
            if replacement is not None:  # a method written in Python for the trace (Tensor.__torch_function__)
                method = _functions.UserFunctionVariable(replacement[0])
                return BoundMethodVariable(method, self.receiver) if replacement[1] else method
            source = self.receiver.source
            member = Item(Attr(Item(Attr(source, "__mro__"), index), "__dict__"), name) if source is not None else None
            if isinstance(found, staticmethod):
                return wrap(tx, found.__func__, Attr(member, "__func__") if member else None)
            if isinstance(found, classmethod):
                func = _functions.UserFunctionVariable(found.__func__, Attr(member, "__func__") if member else None)
                return BoundMethodVariable(func, self.receiver)
            if isinstance(found, types.FunctionType):
                return wrap(tx, found, member)
            if name == "__new__" and found in HANDLERS:  # super().__new__(cls) in a __new__: list.__new__
                return wrap(tx, found, member)
            if _plain_member(found) and member is not None:
                return _plain_class_attribute(tx, name, found, member)
            raise Unsupported(f"super().{name}", f"a {type(found).__name__} found through super() is not modelled")
        raise missing_attribute("'super' object", name)


_MISSING_MEMBER = object()


def _plain_member(found: object) -> bool:
    """A class attribute that is no descriptor (an int, a string, a tuple...): ``super().name`` returns the
    stored object itself, as reading it off the class would."""
    return not hasattr(type(found), "__get__")


def _type_source(tx: InstructionTranslator, receiver: Variable) -> object:
    """How to reach the receiver's class from the frame (None when it cannot be reached)."""
    return receiver.object_view(tx).type_source


@builtin(super)
def builtin_super(tx, args, kwargs):
    return make_super(tx, args)


@builtin(object.__getattribute__)
def builtin_object_getattribute(tx, args, kwargs):
    return GenericGetattrVariable(args[0]).call(tx, args[1:], {})
