"""``TensorMatch(s, example)``: exact tensor type, dispatch keys, dtype, device, requires_grad, sizes and
strides (dynamic dimensions, and the strides depending on them, unchecked).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any, ClassVar

import torch

from ..sources import Source
from .base import _DEAD, Guard, _check_source, _OneSource, _Ref, _set, type_name
from .none import NotNone
from .type_match import TypeMatch


def _dense_strides(example: torch.Tensor) -> tuple[int, ...] | None:
    if example.layout != torch.strided:
        return None  # sparse (COO, CSR...) and mkldnn tensors have no meaningful strides
    try:
        return tuple(int(s) for s in torch._C.TensorBase.stride(example))
    except (RuntimeError, TypeError):
        return None  # sparse and mkldnn tensors have no strides


class TensorMatch(_OneSource):
    """The value is a tensor like ``example``: same Python type, dispatch keys, dtype, device,
    requires_grad, number of dimensions, sizes and strides.

    A dimension listed in ``dynamic_dims`` has its size unchecked, and so has every stride that depends
    on it (the strides of the dimensions laid out outside it). ``sizes`` / ``strides`` may instead be
    given explicitly, with ``None`` for an unchecked entry (``strides=None`` as a whole skips strides).
    The dispatch keys compared are the tensor's own (``torch._C._dispatch_keys``); thread-local state that
    changes dispatch (inference mode, dispatch modes, functorch transforms) is the ``GlobalState`` guard's.
    """

    __slots__ = (
        "_type_ref",
        "device",
        "dispatch_keys",
        "dispatch_keys_text",
        "dtype",
        "requires_grad",
        "sizes",
        "strides",
        "type_text",
    )
    kind = "tensor"
    cost = 6

    _UNSET: ClassVar[Any] = object()

    def __init__(
        self,
        source: Source,
        example: torch.Tensor,
        *,
        dynamic_dims: Iterable[int] = (),
        sizes: Iterable[int | None] | None = None,
        strides: Any = _UNSET,
    ) -> None:
        _check_source("TensorMatch", source)
        if not isinstance(example, torch.Tensor):
            raise TypeError(f"TensorMatch needs a torch.Tensor example, got {type(example).__name__}")
        with torch._C.DisableTorchFunction():
            shape = torch._C.TensorBase.size(example)
            try:
                real_sizes = tuple(int(s) if type(s) is int else s for s in shape)
            except Exception as exc:
                raise ValueError(f"TensorMatch example has no concrete sizes: {exc}") from None
            if any(type(s) is not int for s in real_sizes):
                raise ValueError("TensorMatch example has symbolic sizes; pass the real input tensor")
            ndim = len(real_sizes)
            dyn = set()
            for d in dynamic_dims:
                if type(d) is not int:
                    raise TypeError(f"dynamic_dims must hold ints, got {type(d).__name__} {d!r}")
                if not -ndim <= d < ndim:
                    raise ValueError(f"dynamic dim {d} out of range for a {ndim}-d tensor")
                dyn.add(d % ndim)
            real_strides = _dense_strides(example)
            if sizes is None:
                checked_sizes = tuple(None if i in dyn else s for i, s in enumerate(real_sizes))
            else:
                checked_sizes = tuple(sizes)
                if len(checked_sizes) != ndim or any(s is not None and type(s) is not int for s in checked_sizes):
                    raise ValueError(f"sizes must have {ndim} entries, each an int or None")
            if strides is TensorMatch._UNSET:
                if real_strides is None:
                    checked_strides = None
                else:
                    checked_strides = tuple(
                        None if _stride_depends_on(i, real_strides, dyn) else st
                        for i, st in enumerate(real_strides)
                    )
            elif strides is None:
                checked_strides = None
            else:
                checked_strides = tuple(strides)
                if len(checked_strides) != ndim or any(
                    s is not None and type(s) is not int for s in checked_strides
                ):
                    raise ValueError(f"strides must have {ndim} entries, each an int or None")
            keys = torch._C._dispatch_keys(example)
            _set(
                self,
                _source=source,
                _type_ref=_Ref(type(example)),
                type_text=type_name(type(example)),
                dtype=example.dtype,
                device=example.device,
                requires_grad=bool(example.requires_grad),
                sizes=checked_sizes,
                strides=checked_strides,
                dispatch_keys=int(keys.raw_repr()),
                dispatch_keys_text=str(keys),
            )

    @classmethod
    def from_fields(
        cls,
        source: Source,
        *,
        tensor_type: type,
        dtype: torch.dtype,
        device: torch.device,
        requires_grad: bool,
        sizes: Iterable[int | None],
        strides: Iterable[int | None] | None,
        dispatch_keys: int,
        dispatch_keys_text: str,
    ) -> TensorMatch:
        """The guard checking exactly these fields, without an example tensor (a guard rebuilt in another
        process from a record of one, where no such tensor exists)."""
        _check_source("TensorMatch", source)
        if not (isinstance(tensor_type, type) and issubclass(tensor_type, torch.Tensor)):
            raise TypeError(f"TensorMatch tensor_type must be a torch.Tensor class, got {tensor_type!r}")
        if not isinstance(dtype, torch.dtype) or not isinstance(device, torch.device):
            raise TypeError(f"TensorMatch needs a torch.dtype and a torch.device, got {dtype!r}, {device!r}")
        if type(requires_grad) is not bool or type(dispatch_keys) is not int or type(dispatch_keys_text) is not str:
            raise TypeError("TensorMatch requires_grad must be a bool, dispatch_keys an int and its text a str")
        sizes = tuple(sizes)
        if any(s is not None and type(s) is not int for s in sizes):
            raise ValueError(f"TensorMatch sizes must be ints or None, got {sizes!r}")
        if strides is not None:
            strides = tuple(strides)
            if len(strides) != len(sizes) or any(s is not None and type(s) is not int for s in strides):
                raise ValueError(f"TensorMatch strides must be {len(sizes)} ints or None, got {strides!r}")
        guard = object.__new__(cls)
        _set(
            guard,
            _source=source,
            _type_ref=_Ref(tensor_type),
            type_text=type_name(tensor_type),
            dtype=dtype,
            device=device,
            requires_grad=requires_grad,
            sizes=sizes,
            strides=strides,
            dispatch_keys=dispatch_keys,
            dispatch_keys_text=dispatch_keys_text,
        )
        return guard

    @property
    def tensor_type(self) -> type | None:
        obj = self._type_ref.get()
        return None if obj is _DEAD else obj

    @property
    def alive(self) -> bool:
        return self._type_ref.alive

    @property
    def ndim(self) -> int:
        return len(self.sizes)

    def _key(self) -> tuple:
        return (
            self._source,
            self._type_ref.ident,
            self.dtype,
            str(self.device),
            self.requires_grad,
            self.sizes,
            self.strides,
            self.dispatch_keys,
        )

    @staticmethod
    def _dims_text(values: tuple[int | None, ...] | None) -> str:
        if values is None:
            return "unchecked"
        inner = ", ".join("?" if v is None else str(v) for v in values)
        return f"({inner},)" if len(values) == 1 else f"({inner})"

    def describe(self) -> str:
        return (
            f"{self._source} is a {self.type_text}: dtype={self.dtype}, device={self.device}, "
            f"shape={self._dims_text(self.sizes)}, stride={self._dims_text(self.strides)}, "
            f"requires_grad={self.requires_grad}, dispatch keys {self.dispatch_keys_text}"
        )

    def explain(self, value: Any) -> tuple[str, str] | None:
        src = self._source
        tp = self._type_ref.get()
        if type(value) is not tp:
            return (f"type({src}) is {self.type_text}", type_name(type(value)))
        with torch._C.DisableTorchFunction():
            tb = torch._C.TensorBase
            dtype = tb.dtype.__get__(value)
            if dtype is not self.dtype:
                return (f"{src}.dtype == {self.dtype}", str(dtype))
            device = tb.device.__get__(value)
            if device != self.device:
                return (f"{src}.device == {self.device}", str(device))
            rg = tb.requires_grad.__get__(value)
            if rg is not self.requires_grad:
                return (f"{src}.requires_grad == {self.requires_grad}", str(rg))
            shape = tuple(tb.size(value))
            if len(shape) != len(self.sizes):
                return (f"{src}.dim() == {len(self.sizes)}", str(len(shape)))
            for i, (want, got) in enumerate(zip(self.sizes, shape)):
                if want is not None and want != got:
                    return (f"{src}.shape[{i}] == {want}", str(got))
            if self.strides is not None:
                strides = tuple(tb.stride(value))
                for i, (want, got) in enumerate(zip(self.strides, strides)):
                    if want is not None and want != got:
                        return (f"{src}.stride()[{i}] == {want}", str(got))
            keys = torch._C._dispatch_keys(value)
            if int(keys.raw_repr()) != self.dispatch_keys:
                return (f"{src} dispatch keys == {self.dispatch_keys_text}", str(keys))
        return None

    def implies(self) -> tuple[Guard, ...]:
        tp = self._type_ref.get()
        out: list[Guard] = [NotNone(self._source)]
        if tp is not _DEAD:
            out.append(TypeMatch(self._source, tp))
        return tuple(out)

    def merged_with(self, other: TensorMatch) -> TensorMatch | None:
        """The guard checking what both check (None when they contradict each other)."""
        if (
            self._type_ref.ident != other._type_ref.ident
            or self.dtype != other.dtype
            or self.device != other.device
            or self.requires_grad != other.requires_grad
            or self.dispatch_keys != other.dispatch_keys
            or len(self.sizes) != len(other.sizes)
        ):
            return None
        sizes = _merge_dims(self.sizes, other.sizes)
        if sizes is False:
            return None
        if self.strides is None or other.strides is None:
            strides = self.strides if other.strides is None else other.strides
        else:
            strides = _merge_dims(self.strides, other.strides)
            if strides is False:
                return None
        merged = object.__new__(TensorMatch)
        for name in TensorMatch.__slots__:
            object.__setattr__(merged, name, getattr(self, name))
        object.__setattr__(merged, "_source", self._source)
        object.__setattr__(merged, "sizes", sizes)
        object.__setattr__(merged, "strides", strides)
        return merged


def _merge_dims(a: tuple, b: tuple) -> tuple | bool:
    out = []
    for x, y in zip(a, b):
        if x is not None and y is not None and x != y:
            return False
        out.append(x if x is not None else y)
    return tuple(out)


def _stride_depends_on(i: int, strides: tuple[int, ...], dynamic: set[int]) -> bool:
    """Whether stride ``i`` of a dense layout is a product that includes a dynamic size.

    In a dense layout a dimension's stride is the product of the sizes of the dimensions laid out
    inside it (smaller stride; equal strides: the later dimension is inside).
    """
    si = strides[i]
    for k in dynamic:
        if k == i:
            continue
        sk = strides[k]
        if sk < si or (sk == si and k > i):
            return True
    return False
