"""Tensors while tracing: an FX node plus the FakeTensor that carries its metadata."""

from __future__ import annotations

import operator
from typing import TYPE_CHECKING, Any

import torch
from torch import fx

from loom_guards import Attr, TensorMeta

from .. import entry_layouts
from ..errors import Unsupported, UserError, missing_attribute, missing_for_delete
from ..object_dicts import DELETED
from . import containers as _containers
from .base import Variable
from .constant import ConstantVariable
from .registry import wrap, wrap_constant_like
from .tensor_truth import ambiguous_truth

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: Attributes read straight from the FakeTensor's metadata (guarded by the input's tensor match).
METADATA_ATTRS = frozenset(
    {"dtype", "device", "layout", "requires_grad", "is_cuda", "is_sparse", "is_quantized", "is_meta",
     "is_leaf", "ndim", "is_nested", "is_mkldnn", "itemsize", "nbytes",
     # the device's kind and the layout's, as the flags above (``x.is_cpu``)
     "is_cpu", "is_mps", "is_xpu", "is_ipu", "is_maia", "is_mtia", "is_vulkan", "is_xla", "is_sparse_csr"}
)
#: Attributes that are tensors computed from this one: recorded as graph nodes.
TENSOR_ATTRS = frozenset({"T", "mT", "H", "mH", "real", "imag", "data"})
#: Attributes whose read eager hands to a TorchFunctionMode (:mod:`.function_modes`) first.
_MODE_ATTRIBUTES = METADATA_ATTRS | TENSOR_ATTRS | {"shape", "grad"}
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
    "requires_grad_": "makes autograd record a tensor, which a compiled graph's outputs do not carry",
    "data_ptr": "reads a storage address",
    "untyped_storage": "reads the storage",
    "storage": "reads the storage",
}


def storage_key(value: Any) -> int | None:
    """Which storage a (fake) tensor views (views of one tensor share it; fake tensors keep that), or None for
    anything else."""
    return value.untyped_storage()._cdata if isinstance(value, torch.Tensor) else None


def guard_unmatched_metadata(tx: InstructionTranslator, tensor: TensorVariable, field: str) -> None:
    """Guard what the trace folded of ``tensor``'s ``field`` (``"is_leaf"`` or ``"storage_offset"``) where
    the tensor guard does not compare it: on the graph inputs it was read from. A leaf and a non-leaf
    that require grad, or two views starting at other offsets, look alike to ``TensorMatch``."""
    if field == "is_leaf":
        # (a tensor that does not require grad is always a leaf, and requires_grad is the tensor guard's)
        if tensor.source is not None and tensor.real is not None and tensor.example.requires_grad:
            tx.output.guards.add("constant", TensorMeta(tensor.source, field), tensor.real.is_leaf)
        return
    # a view made in the graph starts where its input does, plus what the trace added: guard the inputs
    # sharing its storage (fake tensors keep which views share one)
    key = storage_key(tensor.example)
    for graph_input in tx.output.inputs:
        example = graph_input.example
        if (graph_input.convert is None and isinstance(example, torch.Tensor) and graph_input.source is not None
                and storage_key(graph_input.node.meta.get("val")) == key):
            tx.output.guards.add("constant", TensorMeta(graph_input.source, field), example.storage_offset())


def keep_version(tensor: torch.Tensor) -> torch.Tensor:
    """Undo the version bump of the ``set_`` that stands for ``tensor.data = ...`` (eager's assignment
    leaves the counter, so tensors autograd saved before stay usable)."""
    version = tensor._version
    torch._C._autograd._unsafe_set_version_counter((tensor,), (max(version - 1, 0),))
    return tensor


#: Key in a graph node's ``meta`` of a tensor made in the graph that a hook was registered on (or
#: ``retain_grad()`` called on): the method's name (:mod:`.tensor_hooks`). Ops using it later break.
HOOKED = "loom_hooked"
#: Key in a graph node's ``meta``: ``retain_grad()`` was called on the tensor it makes (:mod:`.tensor_hooks`).
RETAINED = "loom_retains_grad"

#: Tensor methods modelled by a handler of their own: name → ``handler(tx, tensor, args, kwargs)``, which
#: returns the result or None (the method is then treated as any other). Filled by the modules above.
METHOD_HANDLERS: dict[str, Any] = {}

#: Tensor attributes modelled by a handler of their own: name → ``handler(tx, tensor)``, which returns the
#: value or None (the read is then a graph break). Filled by the modules above.
ATTRIBUTE_HANDLERS: dict[str, Any] = {}

#: How a tensor's methods are read (``variable(tensor, name)``) and called (``call(tx, tensor, name,
#: args, kwargs)``): filled by :mod:`.torch`, which models torch's functions and methods.
TENSOR_METHODS: dict[str, Any] = {}


class TensorVariable(Variable):
    """A tensor produced by, or fed into, the FX graph being recorded."""

    #: For a graph input the program called ``requires_grad_(False)`` on: its placeholder and fake, while
    #: ``node``/``example`` are a detached alias (:mod:`.requires_grad`); the object is still the input.
    frozen_from: tuple[fx.Node, torch.Tensor] | None = None
    #: For a tensor made in the graph that the program turned into a leaf (``requires_grad_()``,
    #: :mod:`.made_leaves`): the source of the tensor the rewritten code made before the graph, which
    #: ``node``/``example`` (its placeholder) stand for from then on.
    made_leaf: Any = None
    #: Whether its class's ``__torch_function__`` is handed its ops (:mod:`.tensor_subclasses`).
    hands_calls = False

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
        if HOOKED in self.node.meta:  # a hook or retain_grad() made after the graph (tensor_hooks)
            raise Unsupported(f"an op on a tensor the graph made and then called {self.node.meta[HOOKED]} on",
                              "the gradient of this use would stay inside the compiled graph (an AOTAutograd "
                              "backend's one node), out of reach of the hook the rewritten code registers on "
                              "the real tensor after it", hint="the op runs after the graph, on the real tensor")
        return self.node

    def as_example(self) -> Any:
        return self.example

    def as_python_constant(self) -> Any:
        raise Unsupported("a tensor used as a Python constant", "its value is only known when the graph runs",
                          hint="keep tensor values inside tensor operations")

    def is_python_constant(self) -> bool:
        return False

    def truth(self, tx: InstructionTranslator) -> bool:
        ambiguous = ambiguous_truth(tx, self)
        if ambiguous is not None:  # eager raises without reading a value
            raise ambiguous
        raise Unsupported(
            "data-dependent control flow",
            "a branch depends on a tensor's value",
            hint="use torch.where, or move the branch out of the compiled function",
        )

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        if getattr(tx.output, "one_hop_skip", False):  # the read would use redispatch_function's skip up
            raise Unsupported(f"tensor attribute {name!r} while torch skips its next torch-function check",
                              "not modelled (see variables/one_hop_skip.py)")
        example = self.example
        if tx.output.function_modes and name in _MODE_ATTRIBUTES:  # eager hands the read to the mode
            handled = TENSOR_METHODS["mode_attribute"](tx, self, name)
            if handled is not None:
                return handled
        if name == "shape":
            return self.size(tx)
        if name == "nbytes" and not all(type(d) is int for d in example.shape):
            # (a fake tensor with symbolic sizes refuses numel() in C: nbytes is numel() * itemsize in the graph)
            numel = self.call_method(tx, "numel", [], {})
            return tx.output.call_function(tx, operator.mul, [numel, ConstantVariable(example.element_size())], {})
        if name == "__class__" and _plain_class_attribute(self.cls):  # what type(tensor) answers
            return wrap_constant_like(self.cls)
        if name in METADATA_ATTRS:
            if name == "is_leaf":
                guard_unmatched_metadata(tx, self, name)
            return ConstantVariable(getattr(example, name))
        if name in TENSOR_ATTRS:
            return tx.output.call_function(tx, getattr, [self, ConstantVariable(name)], {})
        if name in ("grad", "_grad"):
            stored = tx.output.side_effects.stored_attribute(self._identity(), "grad")
            if stored is not None:  # assigned earlier in the trace
                return stored
        if name == "grad_fn" and not example.requires_grad:  # autograd records no history for such a tensor
            return ConstantVariable(None)
        if self.made_leaf is not None and name in ("grad", "grad_fn"):
            return ConstantVariable(None)  # a new leaf: no history, and no backward recorded yet (it stores one)
        if name == "grad":
            return self._grad(tx)

        if callable(getattr(torch.Tensor, name, None)):
            return TENSOR_METHODS["variable"](self, name)
        if not hasattr(self.cls, name):
            stored = self._stored_tag(tx, name)
            if stored is not None:
                return stored
        handler = ATTRIBUTE_HANDLERS.get(name)
        if handler is not None and (found := handler(tx, self)) is not None:
            return found
        if self.real is not None and name in getattr(self.real, "__dict__", {}):
            if self.source is None or hasattr(self.cls, name):
                raise Unsupported(f"tensor attribute {name!r}", "the translator does not model it")
            # a tag the caller put on the tensor (`x.y = t` before the call): Python finds it in the instance
            # dict, since the class defines no such name; read and guarded as a user object's attribute
            return wrap(tx, self.real.__dict__[name], Attr(self.source, name))
        if hasattr(torch.Tensor, name):
            raise Unsupported(f"tensor attribute {name!r}", "the translator does not model it")
        if self.source is not None:
            # hasattr(x, name) / getattr(x, name, default) decided "absent": a tensor given the attribute
            # later must not be served by this entry
            tx.output.guards.add("absent_key", Attr(self.source, "__dict__"), name)
        raise self._no_attribute(name)

    def _no_attribute(self, name: str) -> UserError:
        """The AttributeError of reading a missing ``name``."""
        if _generic_lookup(self.cls):
            # Python's own message, name and obj: known, so `except AttributeError as e: str(e)` is traced
            return missing_attribute(f"{self.cls.__name__!r} object", name, obj=self)
        return missing_attribute("'Tensor' object", name, exact=False)  # the class's __getattr__ may word it

    def instance_tag(self, tx: InstructionTranslator, name: str) -> Variable | None:
        """The entry ``name`` of the tensor's instance ``__dict__`` as the trace sees it (stored by the trace,
        or put on a graph input before the call, read and guarded), or None where it has none (never set, or
        deleted by the trace; its absence from a graph input guarded). For a name torch.Tensor lacks."""
        effects = tx.output.side_effects
        if effects.attr_overlay.get(id(self._identity()), {}).get(name) is DELETED:
            return None
        stored = effects.stored_attribute(self._identity(), name)
        if stored is not None:
            return stored
        if self.real is not None and self.source is not None and name in getattr(self.real, "__dict__", {}):
            return wrap(tx, self.real.__dict__[name], Attr(self.source, name))
        if self.source is not None:  # an entry set later would hide what the class answers
            tx.output.guards.add("absent_key", Attr(self.source, "__dict__"), name)
        return None

    def _stored_tag(self, tx: InstructionTranslator, name: str) -> Variable | None:
        """The value the trace stored as ``name`` on this tensor so far, or None; a tag the trace deleted
        raises the AttributeError Python raises, naming the tensor's class (not the FakeTensor's)."""
        if tx.output.side_effects.attr_overlay.get(id(self._identity()), {}).get(name) is DELETED:
            raise self._no_attribute(name)
        return tx.output.side_effects.stored_attribute(self._identity(), name)

    def delete_attr(self, tx: InstructionTranslator, name: str) -> None:
        """``del tensor.name`` of a tag in the instance ``__dict__`` (stored in the trace, or put on a graph
        input before the call): later reads raise AttributeError, and the rewritten code deletes it from the
        real tensor after the graph. A name the class defines (a property, a method) breaks."""
        if hasattr(self.cls, name) and not plain_class_value(self.cls, name):
            raise Unsupported(f"deleting attribute {name!r} of {self.describe()}",
                              f"{self.cls.__name__} defines {name!r} (a property or method of tensors)")
        if self.instance_tag(tx, name) is None:  # (a class value of that name is no tag: eager raises too)
            raise missing_for_delete(f"{self.cls.__name__!r} object", name)
        tx.output.side_effects.delete_attr(self, self._identity(), name)

    def _identity(self) -> Any:
        """The object this tensor is while tracing: the real one for a graph input, else its fake value
        (one per graph node), which keys the attributes the trace stores on it."""
        return self.real if self.real is not None else self.example

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``tensor.name = value`` for a name the tensor's class does not define (it goes to the
        instance ``__dict__``, as a tag): later reads see ``value``, and the rewritten code stores it
        on the real tensor after the graph."""
        if name == "data" and isinstance(value, TensorVariable):
            self._set_data(tx, value)
            return
        if name in ("grad", "_grad"):
            self._store_grad(tx, value)
            return
        if name == "requires_grad" and "requires_grad_" in METHOD_HANDLERS:
            # the property's setter is requires_grad_(flag) (a freeze loop over parameters)
            if METHOD_HANDLERS["requires_grad_"](tx, self, [value], {}) is not None:
                return
        if hasattr(self.cls, name) and not plain_class_value(self.cls, name):
            raise Unsupported(f"assigning attribute {name!r} of tensor {self.describe()}",
                              f"{self.cls.__name__} defines {name!r} (a property or method of tensors)")
        tx.output.side_effects.store_attr(self, self._identity(), name, value)

    def _store_grad(self, tx: InstructionTranslator, value: Variable) -> None:
        """``x.grad = g`` (or ``x._grad = g``, the same slot), g None or a tensor of x's dtype, device and
        shape: later reads see ``g`` (see _grad), and the rewritten code assigns it to the real tensor
        after the graph. Anything eager refuses (another size or dtype, not a tensor) breaks, and eager
        raises its error there."""
        what = f"assigning .grad of tensor {self.describe()}"
        if not (value.is_python_constant() and value.as_python_constant() is None):
            if not isinstance(value, TensorVariable):
                raise Unsupported(what, f"eager refuses a {value.python_type().__name__} as a gradient")
            new, old = value.example, self.example
            if (new.dtype, new.device, new.layout, new.shape) != (old.dtype, old.device, old.layout, old.shape):
                raise Unsupported(what, "the gradient's dtype, device or size differs from the tensor's (eager raises)")
            if self.real is not None and getattr(self.real, "grad_dtype", old.dtype) not in (None, old.dtype):
                raise Unsupported(what, "the tensor's grad_dtype was set to another dtype")
        tx.output.side_effects.store_attr(self, self._identity(), "grad", value)

    def _set_data(self, tx: InstructionTranslator, value: TensorVariable) -> None:
        """``tensor.data = value`` on a graph input (a parameter reset in place): recorded as eager does
        it, ``tensor.set_(value)`` with grad off, the version counter left where it was. Later reads of
        the tensor, in the graph and after it, see the new data under the same identity. New data of another
        shape is modelled on a tensor that does not require grad. On a tensor computed in the graph, or to
        another dtype or device, it breaks (as torch.compile does)."""
        what = f"assigning .data of tensor {self.describe()}"
        if self.source is None:
            raise Unsupported(what, "only a tensor from outside the compiled code (a graph input) is modelled")
        if self.frozen_from is not None:
            raise Unsupported(what, "the program turned its requires_grad off earlier in this frame")
        new, old = value.example, self.example
        if (new.dtype, new.device) != (old.dtype, old.device):
            raise Unsupported(what, "the new data has another dtype or device")
        if old.requires_grad and not entry_layouts.same_sizes(new.shape, old.shape):
            # (AOTAutograd's backward of a graph that reshapes an input it differentiates fails)
            raise Unsupported(what, "the new data has another shape and the tensor requires grad")
        output = tx.output
        for graph_input in output.inputs:  # the graph still receives the input's old storage and layout
            if graph_input.node.meta.get("val") is old:
                entry_layouts.keep_entry_storage(graph_input.node)
        grad_enabled = output.grad_enabled
        output.set_grad_enabled(tx, False)
        result = output.call_function(tx, torch.Tensor.set_, [self, value], {})
        output.set_grad_enabled(tx, grad_enabled)
        # (AOTAutograd reads the counter to tell a mutation autograd must see from one it must not)
        kept = output.call_function(tx, keep_version, [result], {})
        kept.node.meta["mutates"] = True

    def _grad(self, tx: InstructionTranslator) -> Variable:
        """``tensor.grad`` of a graph input: what autograd left there before the graph runs (a ``backward``
        recorded in the trace stores what it accumulates, read before this), itself a graph input guarded like any tensor, or None guarded so. A tensor
        computed in the graph that does not require grad (and is not an input, as an in-place op's result is)
        has none: nothing can have given it one in the trace but a ``.grad =`` store, read before this."""
        if self.source is None or self.real is None:
            if RETAINED in self.node.meta:  # retain_grad() is made after the graph; a backward after it breaks
                return ConstantVariable(None)
            if not self.example.requires_grad and tx.output.input_of_example(self.example) is None:
                return ConstantVariable(None)
            raise Unsupported("reading .grad of a tensor computed in the graph", "its gradient is produced outside the graph")
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
        if tx.output.function_modes:  # Tensor.__iter__'s calls, each handed to the mode as in eager
            self.call_method(tx, "dim", [], {})
            return self.call_method(tx, "unbind", [ConstantVariable(0)], {}).unpack(tx)
        return [
            tx.output.call_function(tx, operator.getitem, [self, ConstantVariable(i)], {})
            for i in range(int(self.example.shape[0]))  # iterating fixes the length (a guard if symbolic)
        ]

    def length_hint(self, tx: InstructionTranslator) -> None:
        """What CPython's length hint asks of a tensor it iterates (``list(t)``, ``tuple(t)``, ``[*t]``, after
        ``iter(t)``): ``Tensor.__len__``, which eager hands to a mode or a subclass's ``__torch_function__``."""
        if tx.output.function_modes or self.hands_calls:
            self.call_method(tx, "__len__", [], {})

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.made_leaf is not None:
            codegen.load_source(self.made_leaf)  # the object made before the graph, not a graph output
            return
        codegen.load_graph_output(self)

    def describe(self) -> str:
        return f"tensor {self.node.name}"

    def __repr__(self) -> str:
        ex = self.example
        return f"TensorVariable({self.node.name}, {ex.dtype}, {tuple(ex.shape)})"


def length_hinted(tx: InstructionTranslator, value: Variable, items: list[Variable]) -> list[Variable]:
    """``items``, the items of ``value`` a length-hinting construct iterated, after the hint (for a tensor)."""
    if isinstance(value, TensorVariable):
        value.length_hint(tx)
    return items


def refuse_tensor_slice_bounds(index: Variable) -> None:
    """Raise ``Unsupported`` for a subscript of a tensor whose slice has a tensor as a bound (``y[t[0]:]``): the
    result's size is a value the tensor holds, known only when the graph runs (torch.compile breaks there too). A
    tensor whose FakeTensor carries its value (``torch.tensor(2)``: a constant of the fake mode) is left to the op."""
    for item in getattr(index, "items", None) or (index,):
        if isinstance(item, _containers.SliceVariable) and any(
                isinstance(p, TensorVariable) and getattr(p.example, "constant", None) is None for p in item.parts):
            raise Unsupported("a tensor as a slice bound of a tensor subscript",
                              "the slice's length is a value the tensor holds, known only when the graph runs",
                              hint="read it with .item() before the compiled region, or keep the full tensor and mask it")


def opaque_method_reason(name: str) -> str | None:
    """Why calling tensor method ``name`` cannot go in a graph, or None if it can."""
    return OPAQUE_METHODS.get(name)


def _plain_class_attribute(cls: type) -> bool:
    """Whether ``obj.__class__`` is ``type(obj)`` for instances of ``cls``: no class in its MRO but
    ``object`` redefines ``__class__`` (a proxy-like subclass may)."""
    return all("__class__" not in klass.__dict__ for klass in cls.__mro__[:-1])


def plain_class_value(cls: type, name: str) -> bool:
    """Whether ``name`` is found on the tensor class ``cls`` (a subclass's) as a plain value, no descriptor
    and not callable, which an entry of an instance's ``__dict__`` hides, as Python's lookup does; never
    one of torch.Tensor's own names."""
    if hasattr(torch.Tensor, name):
        return False
    for klass in cls.__mro__:
        if name in klass.__dict__:
            found = klass.__dict__[name]
            return not callable(found) and not hasattr(type(found), "__get__")
    return False


def _generic_lookup(cls: type) -> bool:
    """Whether reading a missing attribute of a ``cls`` instance fails in Python's generic lookup (no class
    above TensorBase customises it), whose message names the class: ``'Tensor' object has no attribute 'x'``."""
    for klass in cls.__mro__:
        if klass is torch._C.TensorBase:
            return True
        if "__getattr__" in klass.__dict__ or "__getattribute__" in klass.__dict__:
            return False
    return False
