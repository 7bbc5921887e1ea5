"""The FakeTensorMode loom traces under: PyTorch's, with a direct path to meta kernels for common ops.

PyTorch's ``FakeTensorMode`` is general: for every op it builds a cache key, then tries Python
decompositions, special-cased fake implementations and Python references before the op's meta
kernel. That generality is most of a cold translation's cost (a first ``view`` costs ~1.8 ms, a
cached one ~170 µs). For the ops in :data:`DIRECT_META_OPS`, on static shapes, with every tensor
argument a non-constant fake of this mode on one device, loom calls the op's meta kernel directly and
wraps the result exactly as ``FakeTensorMode`` itself does at the end of its own path. Meta kernels are
what eager uses to size its outputs, so sizes, strides, dtypes and aliasing come out the same. Some ops
(``fake_rules``) do not even need their meta kernel in the common case of contiguous floating inputs.
The test suite checks every op on the list and every rule against the stock path (``LOOM_CHECK_FAKE=1``
does the same check on every op of a real trace). Everything else takes PyTorch's path unchanged.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch._subclasses.fake_tensor import FakeTensor, FakeTensorMode, in_kernel_invocation_manager
from torch.utils import _pytree as pytree

from . import write_overlap
from .fake_rules import CHECKS, FACTORY_RULES, RULES

aten = torch.ops.aten


def _overloads(*names: str) -> frozenset[Any]:
    """``"add.Tensor"`` → ``torch.ops.aten.add.Tensor``; names this torch lacks are skipped."""
    found = []
    for name in names:
        packet, _, overload = name.partition(".")
        op = getattr(getattr(aten, packet, None), overload or "default", None)
        if op is not None:
            found.append(op)
    return frozenset(found)


#: Ops whose meta kernel gives exactly the metadata PyTorch's fake path gives, on static shapes. Each
#: is compared with the stock path by ``packages/symbolic/tests/test_fake_mode.py``. Left out on
#: purpose: factories (no tensor argument to take a device from; ``arange`` on integer bounds with an
#: explicit device has a rule, ``fake_rules.FACTORY_RULES``), random ops, ``_to_copy``
#: (device moves), ``copy_``/``index_put_`` (mixed devices), in-place view ops (``transpose_``), ops
#: with data-dependent output sizes, ops whose result can be a constant (``lift_fresh``), and
#: ``native_batch_norm`` (its meta kernel sizes the saved statistics unlike CPU eager does in eval).
DIRECT_META_OPS: frozenset[Any] = _overloads(
    # views
    "view", "_unsafe_view", "transpose.int", "t", "permute", "expand", "unsqueeze", "squeeze.dim",
    "squeeze.dims", "squeeze", "slice.Tensor", "select.int", "alias", "detach", "split.Tensor",
    "split_with_sizes", "unbind.int", "as_strided", "diagonal", "unfold",
    # matrix products
    "mm", "addmm", "bmm", "baddbmm",
    # elementwise
    "add.Tensor", "sub.Tensor", "mul.Tensor", "div.Tensor", "div.Tensor_mode", "rsub.Tensor",
    "pow.Tensor_Scalar", "pow.Tensor_Tensor", "maximum", "minimum", "remainder.Tensor", "fmod.Tensor",
    "eq.Tensor", "ne.Tensor", "lt.Tensor", "le.Tensor", "gt.Tensor", "ge.Tensor",
    "eq.Scalar", "ne.Scalar", "lt.Scalar", "le.Scalar", "gt.Scalar", "ge.Scalar",
    "where.self", "masked_fill.Scalar", "masked_fill.Tensor", "bitwise_not", "bitwise_and.Tensor",
    "bitwise_or.Tensor", "logical_not", "logical_and", "logical_or", "clamp", "clamp_min", "clamp_max",
    "neg", "abs", "exp", "log", "sqrt", "rsqrt", "reciprocal", "sin", "cos", "tanh", "sigmoid", "erf",
    "relu", "gelu", "silu", "hardtanh", "leaky_relu", "elu", "softplus", "floor", "ceil", "round",
    "sign", "lerp.Scalar", "addcmul", "addcdiv",
    # reductions, normalisations, activations over a dim
    "sum.dim_IntList", "mean.dim", "amax", "amin", "max.dim", "min.dim", "argmax", "var.correction",
    "_softmax", "_log_softmax", "native_layer_norm", "native_group_norm",
    # structure
    "clone", "cat", "stack", "tril", "triu", "cumsum", "embedding", "index_select", "gather",
    "convolution", "constant_pad_nd", "repeat",
)


#: Ops that write arguments their schema does not mark as written (``Tensor(a!)``) → the written ones.
_UNDECLARED_WRITES: dict[Any, Any] = {
    # native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps)
    op: (lambda args, kwargs: args[3:5] if len(args) > 5 and args[5] else ())
    for op in _overloads("native_batch_norm")
}


def written_arguments(func: Any, args: Sequence[object], kwargs: Mapping[str, object]) -> list[Any]:
    """The tensor arguments op ``func`` writes in place: those its schema marks ``Tensor(a!)``, and
    those :data:`_UNDECLARED_WRITES` knows of."""
    undeclared = _UNDECLARED_WRITES.get(func)
    if undeclared is not None:
        return [a for a in undeclared(args, kwargs) if isinstance(a, torch.Tensor)]
    written = []
    for index, argument in enumerate(func._schema.arguments):
        if argument.alias_info is not None and argument.alias_info.is_write:
            value = args[index] if index < len(args) else kwargs.get(argument.name)
            written.extend(v for v in (value if isinstance(value, (list, tuple)) else (value,))
                           if isinstance(v, torch.Tensor))
    return written


class FakeMismatch(AssertionError):
    """The direct meta path disagreed with PyTorch's fake path (a loom bug; check mode only)."""


#: Ops taken directly only for these input dtypes: on low-precision inputs their meta kernel gives
#: float32 statistics where CPU eager (and PyTorch's fake path) gives the input's dtype.
_DTYPES_FOR = {
    op: frozenset({torch.float32, torch.float64})
    for op in _overloads("native_layer_norm", "native_group_norm")
}


#: Ops taken directly only when every tensor argument is contiguous in the default format: their meta
#: kernel sizes the output in that format, where eager (and PyTorch's fake path) picks channels-last when
#: the input or the weight suggests it (a convolution of a channels-last activation stays channels-last).
_CONTIGUOUS_ONLY = _overloads("convolution")


_DEVICE_QUERY = torch.ops.prim.device.default


def _outside_kernel_fake(args: Sequence[object]) -> bool:
    """One fake tensor, not inside a meta kernel's invocation (where it reports the meta device)."""
    return len(args) == 1 and type(args[0]) is FakeTensor and not args[0].fake_mode.in_kernel_invocation


def check_enabled() -> bool:
    """Whether every direct meta call is checked against PyTorch's own path (``LOOM_CHECK_FAKE=1``)."""
    return os.environ.get("LOOM_CHECK_FAKE") == "1"


class LoomFakeTensorMode(FakeTensorMode):
    """``FakeTensorMode`` that runs :data:`DIRECT_META_OPS` straight on their meta kernels."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.check = check_enabled()
        #: How many ops took the direct path, and how many of those a rule of ``fake_rules`` answered.
        self.direct_calls = 0
        self.rule_calls = 0
        #: How many graph inputs :meth:`fake_input` made directly.
        self.direct_inputs = 0
        #: Op → how many of its direct calls were checked against PyTorch's path (check mode only).
        self.checked: Counter[Any] = Counter()
        #: Op → how many of those checked calls a rule answered.
        self.rule_checked: Counter[Any] = Counter()
        #: How many ops tagged ``nondeterministic_seeded`` ran (each advances the real RNG when the graph
        #: runs): a recorded call that ran one is never dead code, whatever its result's fate.
        self.seeded_calls = 0
        #: The tensors ops wrote in place, in order: a recorded call that wrote one of its own arguments
        #: mutates it, even when its name does not say so (``F.batch_norm`` updating running statistics).
        self.written: list[Any] = []

    def dispatch(
        self, func: Any, types: Sequence[type], args: Sequence[object] = (), kwargs: Mapping[str, object] | None = None
    ) -> object:
        """One op on fake tensors: the direct meta path when :meth:`_direct_device` allows, PyTorch's otherwise."""
        if func is _DEVICE_QUERY and _outside_kernel_fake(args):
            return args[0].fake_device  # asked by C++ after most view ops: PyTorch's handler answers the same
        kwargs = kwargs or {}
        check = CHECKS.get(func)
        if check is not None:
            check(args, kwargs)
        if self.shape_env is None and not self.propagate_real_tensors:
            factory = FACTORY_RULES.get(func)
            made = factory(args, kwargs) if factory is not None else None
            if made is not None:
                return self._made(func, types, args, kwargs, made)
            if func in DIRECT_META_OPS:
                flat = pytree.tree_leaves((args, kwargs))
                device = self._direct_device(flat)
                if device is not None and self._dtype_ok(func, args) and self._layout_ok(func, flat):
                    if self.check:
                        return self._checked(func, types, args, kwargs, flat, device)
                    return self._direct(func, args, kwargs, flat, device)
        if getattr(func, "_nondeterministic_seeded", False):  # random ops take PyTorch's path, never the direct one
            self.seeded_calls += 1
        # in-place ops take PyTorch's path too; a higher-order op (``scan``'s registered fake rule) has no schema
        if func in _UNDECLARED_WRITES or getattr(getattr(func, "_schema", None), "is_mutable", False):
            written = written_arguments(func, args, kwargs)
            if written:
                write_overlap.check(func, written, args, kwargs)  # eager's overlap errors: a break, not a graph
            self.written.extend(written)
        return super().dispatch(func, types, args, kwargs)

    def _direct_device(self, flat: list[Any]) -> torch.device | None:
        """The one device of the arguments when they can take the direct path (every tensor a non-empty
        strided fake of this mode, none a constant, all on that device; no SymInt), else None."""
        device = None
        for leaf in flat:
            if isinstance(leaf, torch.Tensor):
                if type(leaf) is not FakeTensor or leaf.fake_mode is not self or leaf.constant is not None:
                    return None
                # Zero-element tensors: PyTorch's Python references pick other (meaningless) strides.
                if leaf.layout is not torch.strided or leaf.is_quantized or leaf.numel() == 0:
                    return None
                if device is None:
                    device = leaf.fake_device
                elif leaf.fake_device != device:
                    return None
            elif isinstance(leaf, (torch.SymInt, torch.SymFloat, torch.SymBool)):
                return None
        return device

    def fake_input(self, value: torch.Tensor) -> FakeTensor:
        """The fake of a graph input, with static shapes.

        A plain parameter (not a view, no gradient, dense, the whole of its storage) is made directly:
        PyTorch's converter describes every tensor in full first (~0.2-1 ms each), and a model reads
        dozens of parameters. Any other tensor goes through the converter.
        """
        if self.shape_env is not None or not _plain_parameter(value):
            return self.from_tensor(value, static_shapes=True)
        self.direct_inputs += 1
        meta = torch.empty_strided(value.shape, value.stride(), dtype=value.dtype, device="meta")
        fake = FakeTensor(self, meta, value.device)
        fake.requires_grad_(value.requires_grad)
        fake._is_param = True  # what Parameter() sets on a subclass: isinstance(fake, nn.Parameter) holds
        self.fake_tensor_converter.set_tensor_memo(value, fake)  # from_tensor(value) finds this one
        if self.check:
            expected = FakeTensorMode().from_tensor(value, static_shapes=True)
            mismatch = describe_mismatch(_input_facts(fake), _input_facts(expected), [])
            if mismatch:
                raise FakeMismatch(f"direct fake of a parameter differs from PyTorch's: {mismatch}")
        return fake

    @staticmethod
    def _layout_ok(func: Any, flat: list[Any]) -> bool:
        return func not in _CONTIGUOUS_ONLY or all(
            leaf.is_contiguous() for leaf in flat if isinstance(leaf, torch.Tensor))

    @staticmethod
    def _dtype_ok(func: Any, args: Sequence[object]) -> bool:
        dtypes = _DTYPES_FOR.get(func)
        return dtypes is None or getattr(args[0], "dtype", None) in dtypes

    def _direct(
        self, func: Any, args: Sequence[object], kwargs: Mapping[str, object], flat: list[Any], device: torch.device
    ) -> object:
        self.direct_calls += 1
        rule = RULES.get(func)
        outputs = rule(args, kwargs) if rule is not None else None
        if outputs is not None:
            self.rule_calls += 1
            made = [self._fresh(shape, dtype, device) for shape, dtype in outputs]
            return made[0] if len(made) == 1 else tuple(made)
        with in_kernel_invocation_manager(self):
            result = func(*args, **kwargs)
        return self.wrap_meta_outputs_with_default_device_logic(result, func, flat, device=kwargs.get("device"))

    def _fresh(self, shape: tuple[int, ...], dtype: torch.dtype, device: torch.device) -> FakeTensor:
        """A new contiguous fake of this mode: what a rule's answer stands for."""
        return FakeTensor(self, torch.empty(shape, dtype=dtype, device="meta"), device)

    def _made(self, func: Any, types: Sequence[type], args: Sequence[object], kwargs: Mapping[str, object],
              made: tuple[tuple[int, ...], torch.dtype, torch.device]) -> FakeTensor:
        """A factory's result from its rule (checked against PyTorch's path in check mode)."""
        shape, dtype, device = made
        self.rule_calls += 1
        result = self._fresh(shape, dtype, device)
        if self.check:
            try:
                expected = super().dispatch(func, types, args, kwargs)
            except Exception as exc:
                raise FakeMismatch(f"factory rule for {func} answered where PyTorch's raised {exc!r}") from exc
            mismatch = describe_mismatch(result, expected, [])
            if mismatch:
                raise FakeMismatch(f"factory rule for {func} differs from PyTorch's: {mismatch}")
            self.checked[func] += 1
            self.rule_checked[func] += 1
        return result

    def _checked(
        self,
        func: Any,
        types: Sequence[type],
        args: Sequence[object],
        kwargs: Mapping[str, object],
        flat: list[Any],
        device: torch.device,
    ) -> object:
        """The direct result, after checking it against PyTorch's path: same metadata, same aliasing,
        same failure."""
        try:
            expected = super().dispatch(func, types, args, kwargs)
        except Exception as exc:  # the direct path must fail too
            try:
                self._direct(func, args, kwargs, flat, device)
            except Exception:
                raise exc from None
            raise FakeMismatch(f"direct meta path for {func} succeeded where PyTorch's raised {exc!r}") from exc
        rule_calls = self.rule_calls
        got = self._direct(func, args, kwargs, flat, device)
        mismatch = describe_mismatch(got, expected, flat)
        if mismatch:
            raise FakeMismatch(f"direct meta path for {func} differs from PyTorch's: {mismatch}")
        self.checked[func] += 1
        if self.rule_calls != rule_calls:
            self.rule_checked[func] += 1
        return got


def share_fake_rule(op: Any, mode_type: type) -> None:
    """Give loom's FakeTensorMode subclass ``mode_type`` the FakeTensorMode rule of higher-order op ``op``: such
    an op looks its rule up by the mode's exact type, and AOTAutograd traces with loom's mode when the inputs
    are its fakes (dynamic shapes)."""
    table = getattr(op, "python_key_table", None)
    if table is not None and mode_type not in table and FakeTensorMode in table:
        op.py_impl(mode_type)(table[FakeTensorMode])


def _plain_parameter(value: Any) -> bool:
    """An ``nn.Parameter`` that owns its whole storage densely and carries nothing else to describe."""
    if type(value) is not torch.nn.Parameter or value.layout is not torch.strided or value.device.type == "meta":
        return False
    if value.is_quantized or value.is_nested or value._is_view() or value.grad is not None:
        return False
    if value.is_inference() or value.is_neg() or value.is_conj() or value.storage_offset() != 0:
        return False
    if value.numel() == 0:
        return False
    span = 1 + sum((size - 1) * stride for size, stride in zip(value.shape, value.stride()))
    return value.untyped_storage().nbytes() == span * value.element_size()


def _input_facts(fake: torch.Tensor) -> tuple[Any, ...]:
    """A fake input's metadata, whether it counts as a parameter, is a leaf, and its storage size."""
    return (fake, isinstance(fake, torch.nn.Parameter), fake.is_leaf, fake.untyped_storage().nbytes())


def tensor_metadata(value: torch.Tensor, inputs: list[Any]) -> tuple[Any, ...]:
    """What a fake result tells the rest of loom: sizes, strides (but of size-1 dimensions), offset,
    dtype, device, layout, grad, and which input's memory it shares (by position), if any."""
    storage = value.untyped_storage()
    shares = next((i for i, t in enumerate(inputs)
                   if isinstance(t, torch.Tensor) and t.untyped_storage()._cdata == storage._cdata), None)
    # The stride of a size-1 dimension never moves through memory; there the direct path keeps what
    # eager's C++ kernels give (view(2, 1, 12, 8) of a (2, 12, 8) tensor: 96), PyTorch's Python
    # reference another number (8).
    strides = tuple(None if size == 1 else stride for size, stride in zip(value.shape, value.stride()))
    return (tuple(value.shape), strides, value.storage_offset(), value.dtype, value.device, value.layout,
            value.requires_grad, type(value), shares)


def describe_mismatch(got: Any, expected: Any, inputs: list[Any]) -> str:
    """Empty when ``got`` and ``expected`` carry the same structure and tensor metadata.

    A list, a tuple and a named tuple count as the same structure: the autograd layer above hands the
    caller the op's declared return type whichever of them the kernel built."""
    got, expected = _as_tuple(got), _as_tuple(expected)
    got_leaves, got_spec = pytree.tree_flatten(got)
    expected_leaves, expected_spec = pytree.tree_flatten(expected)
    if got_spec != expected_spec:
        return f"structure {got_spec} != {expected_spec}"
    for index, (a, b) in enumerate(zip(got_leaves, expected_leaves)):
        if isinstance(a, torch.Tensor) != isinstance(b, torch.Tensor):
            return f"output {index}: {type(a).__name__} != {type(b).__name__}"
        if isinstance(a, torch.Tensor):
            left, right = tensor_metadata(a, inputs), tensor_metadata(b, inputs)
            if left != right:
                return f"output {index}: {left} != {right}"
        elif a != b:
            return f"output {index}: {a!r} != {b!r}"
    return ""


def _as_tuple(value: Any) -> Any:
    """A list, tuple or named tuple as a plain tuple; anything else unchanged."""
    return tuple(value) if isinstance(value, (list, tuple)) else value


def data_dependent_failures() -> tuple[type, ...]:
    """Fake-tensor failures that mean "this needs real data", not "the program is wrong"; a decision on an
    unbacked symbol (an int a ``while_loop`` carries) is data-dependent too. Imported when first asked:
    ``symbolic_shapes`` imports sympy, which only a translation needs."""
    from torch._subclasses.fake_tensor import DataDependentOutputException, DynamicOutputShapeException
    from torch.fx.experimental.symbolic_shapes import GuardOnDataDependentSymNode

    return (DataDependentOutputException, DynamicOutputShapeException, GuardOnDataDependentSymNode)
