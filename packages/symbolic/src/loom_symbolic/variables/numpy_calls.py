"""The callables NumPy work becomes in an FX graph: ``torch._numpy`` on tensors, tensors back.

Each graph target here takes tensors where the program had ndarrays, runs the ``torch._numpy``
equivalent (whose functions take tensors as array-likes; methods and operators need the tensor wrapped
as a ``torch._numpy.ndarray`` first) and unwraps every ``torch._numpy.ndarray`` in the result back to
its tensor. One target object per function, method or operator, made once, so graphs stay comparable.
Each carries ``numpy_original``: what real NumPy does, run on stand-ins to check the result.
"""

from __future__ import annotations

import functools
import importlib
import operator
import sys
from typing import Any

import torch

from .numpy_floats import NUMPY_FLOATS


def _tnp() -> Any:
    """``torch._numpy``, imported when NumPy is first met in a trace, not with loom."""
    module = sys.modules.get("torch._numpy")
    return module if module is not None else importlib.import_module("torch._numpy")


#: NumPy dtype names with a torch dtype of the same name (complex32, bfloat16 have no NumPy twin).
_DTYPE_NAMES = ("bool", "uint8", "uint16", "uint32", "uint64", "int8", "int16", "int32", "int64",
                "float16", "float32", "float64", "complex64", "complex128")
#: NumPy callables that only describe types: folded on their constant arguments.
_TYPE_FUNCTION_NAMES = ("iinfo", "finfo", "dtype", "result_type", "promote_types", "can_cast", "issubdtype",
                        "min_scalar_type", "isdtype")
#: NumPy functions that write into their first argument (their graph nodes must be kept).
_INPLACE_FUNCTION_NAMES = frozenset({"copyto", "put", "put_along_axis", "fill_diagonal", "place", "putmask"})
#: NumPy's modules and their ``torch._numpy`` counterparts.
_MODULES = (("numpy", "torch._numpy"), ("numpy.linalg", "torch._numpy.linalg"), ("numpy.fft", "torch._numpy.fft"))


def _np() -> Any:
    return sys.modules["numpy"]


@functools.cache
def _dtype_tables() -> tuple[dict[Any, Any], dict[Any, Any]]:
    np = _np()
    to_numpy = {getattr(torch, n): np.dtype(n) for n in _DTYPE_NAMES if hasattr(torch, n)}
    return to_numpy, {v: k for k, v in to_numpy.items()}


def numpy_dtype(dtype: torch.dtype) -> Any:
    """The NumPy dtype of a torch dtype, or None."""
    return _dtype_tables()[0].get(dtype)


def torch_dtype(dtype: Any) -> torch.dtype | None:
    """The torch dtype of a NumPy dtype, or None."""
    return _dtype_tables()[1].get(dtype)


def tensor_to_array(tensor: torch.Tensor) -> Any:
    """The ndarray the program sees for a graph output (sharing the tensor's memory)."""
    return tensor.numpy()


def tensor_to_scalar(tensor: torch.Tensor) -> Any:
    """The NumPy scalar the program sees for a 0-d graph output."""
    return tensor.numpy()[()]


def scalar_to_tensor(scalar: Any) -> torch.Tensor:
    """The 0-d tensor the graph receives for a NumPy scalar argument."""
    return torch.from_numpy(_np().asarray(scalar))


def array_to_tensor(array: Any) -> torch.Tensor:
    """The tensor the graph receives for an ndarray argument (sharing its memory)."""
    return torch.from_numpy(array)


@functools.cache
def type_functions() -> frozenset[Any]:
    """NumPy's type-describing callables (``np.iinfo``, ``np.dtype``...)."""
    np = _np()
    return frozenset(getattr(np, n) for n in _TYPE_FUNCTION_NAMES if hasattr(np, n))


@functools.cache
def _tnp_table() -> dict[int, tuple[Any, Any]]:
    """id(NumPy callable) → (it, its ``torch._numpy`` twin), for every name both modules define."""
    table: dict[int, tuple[Any, Any]] = {}
    for np_name, tnp_name in _MODULES:
        np_module, tnp_module = importlib.import_module(np_name), importlib.import_module(tnp_name)
        for name, twin in vars(tnp_module).items():
            real = getattr(np_module, name, None)
            if callable(twin) and callable(real) and not name.startswith("_"):
                table[id(real)] = (real, twin)
    return table




def to_tensors(value: Any) -> Any:
    """Every ``torch._numpy.ndarray`` in ``value`` (nested in tuples and lists) as its tensor."""
    tnp = _tnp()
    if isinstance(value, tnp.ndarray):
        return value.tensor
    if isinstance(value, (tuple, list)):
        return type(value)(to_tensors(v) for v in value)
    return value


def to_arrays(value: Any) -> Any:
    """Every tensor in ``value`` (nested in tuples and lists) as a ``torch._numpy.ndarray``."""
    if isinstance(value, torch.Tensor):
        return _tnp().ndarray(value)
    if isinstance(value, (tuple, list)):
        return type(value)(to_arrays(v) for v in value)
    return value


class NumpyFunction:
    """A graph target: a ``torch._numpy`` function on tensors."""

    def __init__(self, twin: Any, original: Any) -> None:
        self.twin = twin
        self.numpy_original = original
        name = getattr(original, "__name__", "function")
        self.in_place = name in _INPLACE_FUNCTION_NAMES
        # A name ending in "_" marks an in-place node (one the graph must keep), as for torch methods.
        self.__name__ = f"numpy_{name}" + ("_" if self.in_place else "")
        self.__qualname__ = qualified_name(original)  # how messages name it

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        if self.in_place:  # the destination must be a torch._numpy array, whose tensor is written
            args = (_tnp().ndarray(args[0]), *args[1:])
        if isinstance(kwargs.get("out"), torch.Tensor):
            kwargs = {**kwargs, "out": _tnp().ndarray(kwargs["out"])}
        with NUMPY_FLOATS:
            return to_tensors(self.twin(*args, **kwargs))

    def __repr__(self) -> str:
        return f"<torch._numpy.{self.twin.__name__}>"


class NumpyMethod:
    """A graph target: ``torch._numpy.ndarray(tensor).name(*args)``."""

    def __init__(self, name: str, in_place: bool) -> None:
        self.method = name
        # A name ending in "_" marks an in-place node (one the graph must keep), as for torch methods.
        # and_/or_ lose their underscore: a name ending in one marks an in-place (mutating) node
        self.__name__ = f"ndarray_{name.rstrip('_')}" + ("_" if in_place else "")
        self.__qualname__ = f"numpy.ndarray.{name}"

    def numpy_original(self, array: Any, *args: Any, **kwargs: Any) -> Any:
        return getattr(array, self.method)(*args, **kwargs)

    def __call__(self, array: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(kwargs.get("out"), torch.Tensor):
            kwargs = {**kwargs, "out": _tnp().ndarray(kwargs["out"])}
        with NUMPY_FLOATS:
            return to_tensors(getattr(_tnp().ndarray(array), self.method)(*to_arrays(args), **kwargs))

    def __repr__(self) -> str:
        return f"<torch._numpy.ndarray.{self.method}>"


class NumpyOperator:
    """A graph target: an :mod:`operator` function on ``torch._numpy`` arrays."""

    def __init__(self, name: str) -> None:
        self.numpy_original = getattr(operator, name)
        in_place = (name.startswith("i") and name not in ("inv", "invert", "index")) or name == "setitem"
        # and_/or_ lose their underscore: a name ending in one marks an in-place (mutating) node
        self.__name__ = f"ndarray_{name.rstrip('_')}" + ("_" if in_place else "")
        self.__qualname__ = f"numpy.ndarray.{name}"

    def __call__(self, *args: Any) -> Any:
        with NUMPY_FLOATS:
            return to_tensors(self.numpy_original(*to_arrays(args)))

    def __repr__(self) -> str:
        return f"<operator.{self.numpy_original.__name__} on torch._numpy arrays>"


class NumpyAttribute:
    """A graph target: ``torch._numpy.ndarray(tensor).name``."""

    def __init__(self, name: str) -> None:
        self.attribute = name
        self.__name__ = f"ndarray_{name}"

    def numpy_original(self, array: Any) -> Any:
        return getattr(array, self.attribute)

    def __call__(self, array: torch.Tensor) -> Any:
        with NUMPY_FLOATS:
            return to_tensors(getattr(_tnp().ndarray(array), self.attribute))


@functools.cache
def tnp_function(fn: Any) -> NumpyFunction | None:
    """The graph target for NumPy callable ``fn``, or None when ``torch._numpy`` lacks it."""
    entry = _tnp_table().get(id(fn))
    if entry is None or entry[0] is not fn:
        return None
    return NumpyFunction(entry[1], fn)


@functools.cache
def method(name: str, in_place: bool = False) -> NumpyMethod:
    """The graph target for ``ndarray.name(...)``."""
    return NumpyMethod(name, in_place)


@functools.cache
def operator_call(name: str) -> NumpyOperator:
    """The graph target for ``operator.name`` on arrays."""
    return NumpyOperator(name)


@functools.cache
def attribute(name: str) -> NumpyAttribute:
    """The graph target for ``ndarray.name``."""
    return NumpyAttribute(name)


def qualified_name(fn: Any) -> str:
    """``numpy.linalg.norm``, ``numpy.sin``: how messages name a NumPy callable."""
    module = getattr(fn, "__module__", None)
    if not isinstance(module, str):
        module = type(getattr(fn, "__self__", None)).__module__  # np.random.rand: a RandomState's method
    if module.startswith("numpy.random"):
        module = "numpy.random"
    elif not module.startswith(("numpy.linalg", "numpy.fft")):
        module = "numpy"
    return f"{module}.{getattr(fn, '__name__', repr(fn))}"
