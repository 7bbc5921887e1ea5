"""Tensors while tracing: an FX node plus the FakeTensor that carries its metadata."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import torch
from torch import fx

from loom_guards import Attr

from ..errors import Unsupported, missing_attribute
from . import containers as _containers
from .base import Variable
from .constant import ConstantVariable
from .registry import wrap

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: Attributes read straight from the FakeTensor's metadata (guarded by the input's tensor match).
METADATA_ATTRS = frozenset(
    {"dtype", "device", "layout", "requires_grad", "is_cuda", "is_sparse", "is_quantized", "is_meta",
     "is_leaf", "ndim", "is_nested", "is_mkldnn", "is_complex", "itemsize", "nbytes"}
)
#: Attributes that are tensors computed from this one: recorded as graph nodes.
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
#: Methods whose result depends on metadata only: folded to constants.
METADATA_METHODS = frozenset(
    {"size", "dim", "ndimension", "numel", "nelement", "stride", "is_contiguous", "element_size",
     "is_floating_point", "is_complex", "is_signed", "get_device", "storage_offset", "is_inference"}
)
#: Methods that need the tensor's data in Python or act outside the graph: a graph break.
OPAQUE_METHODS = {
    "item": "reads a tensor's value into Python",
    "tolist": "reads a tensor's values into Python",
    "numpy": "converts to a NumPy array",
    "__bool__": "reads a tensor's value into Python",
    "__int__": "reads a tensor's value into Python",
    "__float__": "reads a tensor's value into Python",
    "__index__": "reads a tensor's value into Python",
    "backward": "runs autograd outside the graph",
    "register_hook": "registers a Python hook",
    "retain_grad": "asks autograd to keep a gradient, on the real tensor",
    "data_ptr": "reads a storage address",
    "untyped_storage": "reads the storage",
    "storage": "reads the storage",
}


#: How a tensor's methods are read (``variable(tensor, name)``) and called (``call(tx, tensor, name,
#: args, kwargs)``): filled by :mod:`.torch`, which models torch's functions and methods.
TENSOR_METHODS: dict[str, Any] = {}


class TensorVariable(Variable):
    """A tensor produced by, or fed into, the FX graph being recorded."""

    def __init__(
        self, node: fx.Node, example: torch.Tensor, source: Any = None, cls: type | None = None, real: Any = None
    ) -> None:
        self.node = node
        #: The real tensor, for graph inputs (its instance attributes are not on the FakeTensor).
        self.real = real
        self.example = example
        self.source = source
        #: The real value's class (``nn.Parameter`` for parameters): ``isinstance`` checks use it.
        self.cls = cls or torch.Tensor
        node.meta["val"] = example
        node.meta["example_value"] = example

    def python_type(self) -> type:
        return self.cls

    def as_graph_arg(self) -> Any:
        return self.node

    def as_example(self) -> Any:
        return self.example

    def as_python_constant(self) -> Any:
        raise Unsupported("a tensor used as a Python constant", "its value is only known when the graph runs",
                          hint="keep tensor values inside tensor operations")

    def is_python_constant(self) -> bool:
        return False

    def truth(self, tx: InstructionTranslator) -> bool:
        raise Unsupported(
            "data-dependent control flow",
            "a branch depends on a tensor's value",
            hint="use torch.where, or move the branch out of the compiled function",
        )

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        example = self.example
        if name == "shape":
            return self.size(tx)
        if name in METADATA_ATTRS:
            return ConstantVariable(getattr(example, name))
        if name in TENSOR_ATTRS:
            return tx.output.call_function(tx, getattr, [self, ConstantVariable(name)], {})
        if name == "grad":
            return self._grad(tx)

        if callable(getattr(torch.Tensor, name, None)):
            return TENSOR_METHODS["variable"](self, name)
        if hasattr(torch.Tensor, name) or (self.real is not None and name in getattr(self.real, "__dict__", {})):
            raise Unsupported(f"tensor attribute {name!r}", "the translator does not model it")
        if self.source is not None:
            # hasattr(x, name) / getattr(x, name, default) decided "absent": a tensor given the attribute
            # later must not be served by this entry
            tx.output.guards.add("absent_key", Attr(self.source, "__dict__"), name)
        raise missing_attribute("'Tensor' object", name)

    def _grad(self, tx: InstructionTranslator) -> Variable:
        """``tensor.grad`` of a graph input: what autograd left there before the graph runs (``backward``
        always breaks the graph), itself a graph input guarded like any tensor, or None guarded so."""
        if self.source is None or self.real is None:
            raise Unsupported("reading .grad of a tensor computed in the graph", "its gradient is produced outside the graph")
        stored = tx.output.side_effects.stored_attribute(self.real, "grad")
        if stored is not None:
            return stored
        return wrap(tx, self.real.grad, Attr(self.source, "grad"))

    def size(self, tx: InstructionTranslator) -> Variable:
        """``tensor.shape``: constants, and symbolic ints for dynamic dimensions."""
        return _containers.SizeVariable([tx.output.size_of(self, d) for d in range(self.example.dim())])

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        return TENSOR_METHODS["call"](tx, self, name, args, kwargs)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        if self.example.dim() == 0:
            raise Unsupported("iteration over a 0-d tensor", "a 0-d tensor is not iterable")
        import operator

        return [
            tx.output.call_function(tx, operator.getitem, [self, ConstantVariable(i)], {})
            for i in range(int(self.example.shape[0]))  # iterating fixes the length (a guard if symbolic)
        ]

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_graph_output(self)

    def describe(self) -> str:
        return f"tensor {self.node.name}"

    def __repr__(self) -> str:
        ex = self.example
        return f"TensorVariable({self.node.name}, {ex.dtype}, {tuple(ex.shape)})"


def opaque_method_reason(name: str) -> str | None:
    """Why calling tensor method ``name`` cannot go in a graph, or None if it can."""
    return OPAQUE_METHODS.get(name)
