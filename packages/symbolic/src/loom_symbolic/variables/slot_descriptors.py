"""The descriptors C classes keep for their fields (``getset_descriptor``, ``member_descriptor``:
``type.__dict__["__dict__"]``, ``BaseException.__dict__["args"]``) and their bound ``__get__``
(``type.__dict__["__dict__"].__get__``, a ``method-wrapper``). ``d.__get__(obj)`` is what ``obj.<name>``
runs when attribute lookup on ``type(obj)`` finds ``d`` (a field descriptor is a data descriptor, so the
instance's own dict never shadows it): the call is traced as that attribute read. A class further down
that puts something else under the name is not modelled; ``d.__get__(None, owner)`` is ``d`` itself.
(Tensor fields have their own variables, which hand the read to a ``__torch_function__``:
:mod:`.function_modes`.)"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from ..errors import Unsupported, UserError
from . import registry
from .attributes import class_attribute
from .base import RealValueVariable, Variable
from .constant import ConstantVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_FIELD_DESCRIPTORS = (types.GetSetDescriptorType, types.MemberDescriptorType)


def _descriptor_get(tx: InstructionTranslator, descriptor: Any, holder: Variable, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
    """``descriptor.__get__(*args)``; ``holder`` is the descriptor's variable (for ``__get__(None, owner)``)."""
    if kwargs or len(args) not in (1, 2):
        raise Unsupported(f"{descriptor!r}.__get__ with these arguments", "not modelled")
    obj = args[0]
    if obj.is_python_constant() and obj.as_python_constant() is None:
        if len(args) == 2 and not (args[1].is_python_constant() and args[1].as_python_constant() is None):
            return holder
        raise UserError(f"{descriptor!r}.__get__(None, None)", "__get__(None, None) is invalid", exc_type=TypeError,
                        exc_args=("__get__(None, None) is invalid",))
    cls = obj.python_type()
    if not issubclass(cls, descriptor.__objclass__):
        message = (f"descriptor '{descriptor.__name__}' for '{descriptor.__objclass__.__name__}' objects doesn't "
                   f"apply to a '{cls.__name__}' object")
        raise UserError(f"{descriptor!r}.__get__", message, exc_type=TypeError, exc_args=(message,))
    if class_attribute(cls, descriptor.__name__) is not descriptor:
        raise Unsupported(f"{descriptor!r}.__get__ on a {cls.__name__}",
                          "the class puts something else under the name: not modelled")
    return obj.var_getattr(tx, descriptor.__name__)


class FieldDescriptorVariable(RealValueVariable):
    """A C class's field descriptor (guarded by identity): ``__get__`` reads the field."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name == "__get__":
            return FieldGetVariable(self.value.__get__, owner=self)
        if name in ("__name__", "__qualname__", "__doc__"):
            return ConstantVariable(getattr(self.value, name))
        if name == "__objclass__":
            return registry.wrap(tx, self.value.__objclass__, None)
        raise Unsupported(f"attribute {name!r} of {type(self.value).__name__}", "not modelled")

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if name == "__get__":
            return _descriptor_get(tx, self.value, self, args, kwargs)
        return super().call_method(tx, name, args, kwargs)

    def describe(self) -> str:
        return repr(self.value)


class FieldGetVariable(RealValueVariable):
    """A field descriptor's bound ``__get__`` (a ``method-wrapper``): calling it reads the field."""

    def __init__(self, value: Any, source: Any = None, owner: Variable | None = None) -> None:
        super().__init__(value, source)
        self.owner = owner

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        holder = self.owner if self.owner is not None else FieldDescriptorVariable(self.value.__self__)
        return _descriptor_get(tx, self.value.__self__, holder, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if name in ("__name__", "__qualname__"):
            return ConstantVariable(getattr(self.value, name))
        if name == "__self__":
            return self.owner if self.owner is not None else FieldDescriptorVariable(self.value.__self__)
        raise Unsupported(f"attribute {name!r} of method-wrapper", "not modelled")

    def describe(self) -> str:
        return f"{self.value.__self__!r}.__get__"


def _is_field_descriptor(value: Any) -> bool:
    return type(value) in _FIELD_DESCRIPTORS


def _is_field_get(value: Any) -> bool:
    return (type(value) is types.MethodWrapperType and value.__name__ == "__get__"
            and type(value.__self__) in _FIELD_DESCRIPTORS)


def _identity(cls: type[RealValueVariable]) -> Any:
    def build(tx: Any, value: Any, source: Any) -> Variable:
        if tx is not None and source is not None:
            tx.output.guards.add("identity", source, value)
        return cls(value, source)

    return build


# after the tensor fields' own rules (555, 556), which hand the read to a __torch_function__
registry.add_rule(557, _is_field_descriptor, _identity(FieldDescriptorVariable))
registry.add_rule(558, _is_field_get, _identity(FieldGetVariable))
