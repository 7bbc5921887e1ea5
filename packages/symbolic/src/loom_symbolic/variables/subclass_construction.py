"""Tensor subclass instances made in the trace: ``torch.Tensor._make_subclass(cls, data)`` and the class called.

``_make_subclass(cls, data)`` (``require_grad`` false) gives a new ``cls`` object on ``data``'s storage, detached
from its autograd history and handed to no ``__torch_function__``: an ``aten.detach`` node, of class ``cls``
(:class:`.tensor_subclasses.SubclassTensorVariable`; a plain tensor for ``cls`` ``torch.Tensor``).

``cls(t)`` for a subclass that keeps ``TensorBase.__new__`` aliases ``t`` as ``t.as_subclass(cls)`` does (its
``grad_fn`` an ``AliasBackward0``), and ``cls([1.0, 2.0])`` makes a new tensor of the default dtype from the
floats; a class with a ``__new__`` of its own (a staticmethod that calls
``_make_subclass``, as most do) has it inlined. A Python ``__init__`` then runs on the new tensor. What is not
modelled breaks: other constructor arguments (sizes, int lists, a storage), ``require_grad`` true, a class
whose tensors :func:`.tensor_subclasses.modelled` refuses, ``nn.Parameter`` subclasses (made as they always were).
"""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from ..errors import Unsupported, UserError
from . import tensor_subclasses as _subclasses
from .attributes import class_attribute
from .base import Variable
from .builtins import builtin
from .constant import ConstantVariable
from .new_objects import FAMILY_MAKERS
from .registry import wrap
from .tensor import TensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

_TENSOR_NEW = torch._C.TensorBase.__new__


def _subclass_of(tx: InstructionTranslator, tensor: TensorVariable, cls: Any, what: str, op: Any) -> Variable:
    """``tensor`` through ``op`` (an alias or a detach node, never handed to a ``__torch_function__``), of class
    ``cls``."""
    if cls is torch.Tensor:
        return _subclasses.untouched(tx, op, tensor)
    if not (_subclasses.modelled(cls) or _subclasses.quiet(cls)):
        raise Unsupported(f"{what} of class {cls.__qualname__}", "a tensor of this class is not modelled",
                          hint="ops on the result run outside the compiled graph")
    return _subclasses.make_subclass_tensor(tx, tensor, cls, op)


@builtin(torch.Tensor._make_subclass, torch._C.TensorBase._make_subclass)
def builtin_make_subclass(tx, args, kwargs):
    """``torch.Tensor._make_subclass(cls, data, require_grad=False)``."""
    grad = args[2] if len(args) == 3 else kwargs.get("require_grad")
    if len(args) not in (2, 3) or set(kwargs) - {"require_grad"} or (len(args) == 3 and kwargs):
        return None
    cls, data = args[:2]
    if not cls.is_python_constant() or not isinstance(data, TensorVariable):
        return None
    if grad is not None and (not grad.is_python_constant() or grad.as_python_constant() is not False):
        return None  # a new leaf that requires grad: not modelled
    cls = cls.as_python_constant()
    if not (isinstance(cls, type) and issubclass(cls, torch.Tensor)):
        return None  # eager's TypeError, raised where the call runs
    return _subclass_of(tx, data, cls, "torch.Tensor._make_subclass", torch.ops.aten.detach.default)


def _float_items(args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """The one list or tuple of Python floats ``cls(data)`` was given (ints would be read as sizes), else None."""
    if len(args) != 1 or kwargs or not args[0].is_python_constant():
        return None
    value = args[0].as_python_constant()
    if type(value) not in (list, tuple) or not value or any(type(v) is not float for v in value):
        return None
    return ConstantVariable(list(value))


def _tensor_family(cls: type) -> bool:
    return issubclass(cls, torch.Tensor) and not issubclass(cls, torch.nn.Parameter)


def construct_tensor_subclass(tx: InstructionTranslator, cls: type, cls_source: Any, args: list[Variable],
                              kwargs: dict[str, Variable]) -> Variable:
    """``cls(*args, **kwargs)`` for a tensor subclass: the new tensor, its ``__init__`` run."""
    new = class_attribute(cls, "__new__")
    if new is _TENSOR_NEW:
        data = _float_items(args, kwargs)
        if data is not None:  # cls([1.0, 2.0]): the legacy constructor's data, of the default dtype, no view
            made = tx.output.call_function(tx, torch.tensor, [data], {})  # floats: the default dtype
            instance = _subclass_of(tx, made, cls, "a tensor made by its class", torch.ops.aten.detach.default)
        elif len(args) != 1 or kwargs or not isinstance(args[0], TensorVariable):
            raise Unsupported(f"creating a {cls.__qualname__} object", "only cls(tensor) and cls(floats) are modelled",
                              hint="sizes, int lists and storages go to torch's legacy constructor")
        else:
            instance = _subclass_of(tx, args[0], cls, "a tensor made by its class", torch.ops.aten.alias.default)
    elif isinstance(new, staticmethod) and isinstance(new.__func__, types.FunctionType):
        new_source = Attr(cls_source, "__new__") if cls_source is not None else None
        instance = wrap(tx, new.__func__, new_source).call(tx, [wrap(tx, cls, cls_source), *args], kwargs)
        if not issubclass(instance.python_type(), cls):
            return instance  # Python runs no __init__ on an object of another class
    else:
        raise Unsupported(f"creating a {cls.__qualname__} object", f"its __new__ is a {type(new).__name__}")
    init = class_attribute(cls, "__init__")
    if isinstance(init, types.FunctionType):
        init_source = Attr(cls_source, "__init__") if cls_source is not None else None
        result = wrap(tx, init, init_source).call(tx, [instance, *args], kwargs)
        if not (result.is_python_constant() and result.as_python_constant() is None):
            raise UserError(f"{cls.__name__}.__init__", "__init__() should return None", exc_type=TypeError)
    elif init is not object.__init__:
        raise Unsupported(f"creating a {cls.__qualname__} object", f"its __init__ is a {type(init).__name__}")
    return instance


FAMILY_MAKERS.append((_tensor_family, construct_tensor_subclass))
