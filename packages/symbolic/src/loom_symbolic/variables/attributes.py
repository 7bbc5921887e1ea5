"""Attribute lookup on real objects while tracing, following Python's rules without running them.

Instance ``__dict__`` first (after data descriptors), then the class's MRO: functions bind,
properties are inlined, static and class methods unwrap, other class attributes are wrapped.
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, missing_attribute
from .base import Variable

if TYPE_CHECKING:
    from ..translator import InstructionTranslator

_MISSING = object()


def class_attribute(cls: type, name: str) -> Any:
    """``name`` from ``cls``'s MRO without invoking descriptors, or _MISSING."""
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return _MISSING


def _module_getattr() -> Any:
    """``nn.Module.__getattr__``: it only finds parameters, buffers and submodules, which the
    translator reads from the module's tables itself; anything else is a missing attribute."""
    import torch

    return torch.nn.Module.__getattr__


def has_custom_getattribute(cls: type) -> bool:
    """Whether ``cls`` overrides attribute lookup in a way the translator cannot follow."""
    return class_attribute(cls, "__getattribute__") is not object.__getattribute__


def resolve(tx: InstructionTranslator, receiver: Variable, value: Any, source: Any, name: str,
            instance_dict: dict | None) -> Variable:
    """``value.name`` where ``receiver`` is the variable standing for ``value``.

    A ``__getattribute__`` written in Python is inlined (it usually ends in ``super().__getattribute__``,
    which comes back here through :func:`generic_getattr`).
    """
    from loom_guards import Attr

    from .builder import wrap
    from .constant import ConstantVariable

    cls = type(value)
    if has_custom_getattribute(cls):
        hook = class_attribute(cls, "__getattribute__")
        if not isinstance(hook, types.FunctionType):
            raise Unsupported(f"attribute {name!r} of {cls.__name__}", "the class customises __getattribute__ in C")
        hook_source = Attr(Attr(source, "__class__"), "__getattribute__") if source is not None else None
        return wrap(tx, hook, hook_source).call(tx, [receiver, ConstantVariable(name)], {})
    return generic_getattr(tx, receiver, value, source, name, instance_dict)


def generic_getattr(tx: InstructionTranslator, receiver: Variable, value: Any, source: Any, name: str,
                    instance_dict: dict | None) -> Variable:
    """``object.__getattribute__(value, name)``: Python's default lookup, without custom hooks."""
    from loom_guards import Attr

    from .builder import wrap

    cls = type(value)
    static = class_attribute(cls, name)
    is_data_descriptor = static is not _MISSING and (
        hasattr(type(static), "__set__") or hasattr(type(static), "__delete__")
    )
    if is_data_descriptor:
        return _descriptor(tx, receiver, value, source, name, static)
    if instance_dict is not None and name in instance_dict:
        return wrap(tx, instance_dict[name], Attr(source, name) if source is not None else None)
    if static is not _MISSING:
        return _descriptor(tx, receiver, value, source, name, static)
    fallback = class_attribute(cls, "__getattr__")
    if fallback is not _MISSING and fallback is not _module_getattr():
        if not isinstance(fallback, types.FunctionType):
            raise Unsupported(f"attribute {name!r} of {cls.__name__}", "the class defines __getattr__ in C")
        from .constant import ConstantVariable

        fallback_source = Attr(Attr(source, "__class__"), "__getattr__") if source is not None else None
        return wrap(tx, fallback, fallback_source).call(tx, [receiver, ConstantVariable(name)], {})
    raise missing_attribute(f"{cls.__name__!r} object", name)


def _descriptor(tx: InstructionTranslator, receiver: Variable, value: Any, source: Any, name: str,
                static: Any) -> Variable:
    from loom_guards import Attr

    from .builder import wrap
    from .functions import BoundMethodVariable, UserFunctionVariable

    class_source = Attr(Attr(source, "__class__"), name) if source is not None else None
    if isinstance(static, types.FunctionType):
        return BoundMethodVariable(UserFunctionVariable(static, class_source), receiver)
    if isinstance(static, property):
        if static.fget is None:
            raise missing_attribute(f"property {name!r}", "getter")
        getter_source = Attr(class_source, "fget") if class_source is not None else None
        return wrap(tx, static.fget, getter_source).call(tx, [receiver], {})
    if isinstance(static, staticmethod):
        return wrap(tx, static.__func__, None if class_source is None else Attr(class_source, "__func__"))
    if isinstance(static, classmethod):
        cls_var = wrap(tx, type(value), Attr(source, "__class__") if source is not None else None)
        func_source = None if class_source is None else Attr(class_source, "__func__")
        return BoundMethodVariable(UserFunctionVariable(static.__func__, func_source), cls_var)
    if isinstance(static, (types.MemberDescriptorType, types.GetSetDescriptorType)):
        # Slots and C-level properties: read the real attribute (it is guarded like any other).
        return wrap(tx, getattr(value, name), Attr(source, name) if source is not None else None)
    if isinstance(static, (types.MethodDescriptorType, types.WrapperDescriptorType, types.BuiltinFunctionType)):
        raise Unsupported(f"method {name!r} of {type(value).__name__}", "a C method of a Python object")
    if hasattr(type(static), "__get__"):
        raise Unsupported(f"attribute {name!r} of {type(value).__name__}", f"a {type(static).__name__} descriptor")
    return wrap(tx, static, Attr(source, name) if source is not None else None)
