"""``super()`` in a method of a tensor subclass, on one of its tensors (``super().sum(dim)`` in an override of
``sum``): what the MRO finds after the class.

A member of a Python class on the way (a method, a property, a static or class method, a plain value) is read
as the tensor's own attribute reads read it (:func:`.tensor_subclasses.class_member`). A method of ``torch.Tensor`` itself is the tensor's own method,
called past the subclass's overrides: eager still hands the call to the subclass's ``__torch_function__``, and so
does the trace (:mod:`.tensor_subclasses`); ``super().__init__()`` is ``object.__init__``, which does nothing.
Anything else of ``torch.Tensor`` (an attribute such as ``shape``, a dunder) breaks.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import torch

from ..errors import Unsupported
from . import tensor_subclasses as _subclasses
from .base import Variable
from .super_proxy import RECEIVER_MAKERS, SuperVariable, _NoOpInit
from .tensor import TensorVariable
from .tensor_subclasses import SubclassTensorVariable

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator

#: The classes whose members are the tensor's own (C methods, and torch.Tensor's Python ones).
_TENSOR_CLASSES = (torch.Tensor, torch._C.TensorBase)


class TensorSuperVariable(SuperVariable):
    """``super(cls, tensor)`` for a tensor of a Python subclass made or read in the trace."""

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        mro = self.receiver.python_type().__mro__
        for klass in mro[mro.index(self.cls) + 1:]:
            if klass in _TENSOR_CLASSES:
                break
            if name in klass.__dict__:  # a Python class's member, as the tensor's own attribute reads find it
                return _subclasses.class_member(tx, self.receiver, klass, name)
        if name == "__init__" and torch.Tensor.__init__ is object.__init__:
            return _NoOpInit()  # super().__init__() in a subclass's __init__: object's, which does nothing
        if name.startswith("__") or not callable(getattr(torch.Tensor, name, None)):
            raise Unsupported(f"super().{name} on a {self.receiver.python_type().__qualname__}",
                              "only torch.Tensor's methods are modelled past the subclass")
        return TensorVariable.var_getattr(self.receiver, tx, name)  # the tensor's own, past the class's overrides


RECEIVER_MAKERS.append((lambda receiver: isinstance(receiver, SubclassTensorVariable), TensorSuperVariable))
