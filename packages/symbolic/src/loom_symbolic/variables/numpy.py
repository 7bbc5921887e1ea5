"""NumPy in the trace: arrays backed by graph tensors, NumPy calls recorded through ``torch._numpy``.

An ndarray made in the trace (``t.numpy()``, ``np.asarray(t)``, any NumPy function's result) is an
:class:`NdarrayVariable`: a graph tensor plus the knowledge that the program sees a NumPy array (or a
NumPy scalar). NumPy functions, ufuncs, operators, methods, attributes and indexing on it are
recorded as one FX node each whose target calls the ``torch._numpy`` equivalent on tensors and hands
tensors back (:mod:`loom_symbolic.variables.numpy_calls`), so the graph stays tensors-only. Where the
array leaves the frame, the rewritten bytecode turns the graph's tensor back into a real ndarray.

``torch._numpy`` is close to NumPy, not equal to it (it computes ``int_array / 2`` in the default torch
dtype, float32, where NumPy gives float64): every call is first run by real NumPy on stand-in arrays
of the same dtypes (and shapes, when small), and a result whose type, dtype or shape differs is a
graph break rather than a wrong answer. A stand-in NumPy rejects (a bad cast, a singular matrix) is a
graph break too: the real program then runs and raises, or not, on the real values.
"""

from __future__ import annotations

import sys
import types
import warnings
from typing import TYPE_CHECKING, Any

import torch

from loom_guards import Attr

from ..errors import Unsupported, UserError
from ..shapes import is_symbolic
from . import containers as _containers
from . import numpy_calls as calls
from .base import Variable
from .constant import ConstantVariable, FrozenObjectVariable, is_constant_value, wrap_frozen
from .registry import wrap_object
from .tensor import TensorVariable

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: Stand-in arrays keep the real shapes up to this many elements in all; above it every size is 1
#: (broadcasting and matmul stay valid), so checking a call never costs more than a small NumPy call.
_STAND_IN_LIMIT = 1 << 16
#: ndarray attributes that are metadata: folded to constants.
_METADATA_ATTRS = frozenset({"ndim", "size", "itemsize", "nbytes"})
#: ndarray attributes that are arrays computed from this one: recorded.
_ARRAY_ATTRS = frozenset({"T", "real", "imag", "mT"})
#: Methods that hand the array's values to Python, or depend on memory NumPy and torch lay out differently.
_OPAQUE_METHODS = {
    "item": "reads an array's value into Python", "tolist": "reads an array's values into Python",
    "tobytes": "reads an array's memory", "tofile": "does I/O", "dump": "does I/O", "dumps": "reads an array's memory",
    "view": "reinterprets an array's memory", "resize": "reallocates an array in place",
    "__bool__": "reads an array's value into Python", "__int__": "reads an array's value into Python",
    "__float__": "reads an array's value into Python", "__index__": "reads an array's value into Python",
    "__iter__": "iterates an array", "__array__": "converts to an ndarray outside the graph",
    "__str__": "formats an array's values", "__repr__": "formats an array's values",
    "__format__": "formats an array's values", "__hash__": "hashes an array", "__reduce__": "pickles an array",
    "__reduce_ex__": "pickles an array", "__copy__": "copies outside the graph", "__deepcopy__": "copies outside the graph",
    "__dlpack__": "exports an array's memory", "__array_function__": "dispatches a NumPy function",
    "__array_ufunc__": "dispatches a NumPy ufunc", "__array_wrap__": "wraps an array", "__setstate__": "unpickles an array",
}
#: Methods that read a NumPy scalar's value into Python: answered where that value is known (``argument``).
_VALUE_READS = frozenset({"item", "tolist", "__int__", "__float__", "__index__", "__bool__"})
#: Methods that change the array they are called on (they return None).
_INPLACE_METHODS = frozenset({"fill", "sort", "put"})
#: torch functions that turn an ndarray into a tensor: the graph's tensor is already one.
#: NumPy functions whose arguments may be torch tensors (eager converts those with ``Tensor.__array__``;
#: elsewhere a tensor can make NumPy hand back a tensor through ``__array_wrap__``).
#: The ``*_like`` makers convert too and hand back a plain ndarray (they never call ``__array_wrap__``);
#: ``empty_like`` is left out: its values are whatever memory held.
_TAKES_TENSORS = frozenset({"asarray", "array", "asanyarray", "ascontiguousarray", "ones_like", "zeros_like",
                            "full_like"})
#: Submodules with no ``torch._numpy`` counterpart modelled: their functions break the graph.
_UNMODELLED_MODULES = {"numpy.random": "NumPy's random generator state lives outside the graph"}


#: Kinds of callables NumPy defines besides its ufuncs and array-function dispatchers.
_FUNCTION_TYPES = (type, types.BuiltinFunctionType, types.FunctionType)


def _np() -> Any:
    return sys.modules["numpy"]  # only asked once a NumPy object was met, so NumPy is imported


def is_numpy_object(value: Any) -> bool:
    """Whether ``value`` is one of NumPy's objects (an array, a function, a ufunc, a dtype, a scalar type)."""
    if type(value).__module__.startswith("numpy"):
        return True
    if isinstance(value, _FUNCTION_TYPES) or type(value).__name__ == "cython_function_or_method":
        return _numpy_module_of(value).startswith("numpy") and "numpy" in sys.modules
    return False


def _numpy_module_of(fn: Any) -> str:
    """The module of a NumPy callable; for a C method (``np.random.rand``), its object's."""
    owner = getattr(fn, "__module__", None)
    if not isinstance(owner, str):
        owner = type(getattr(fn, "__self__", None)).__module__
    return owner


def wrap(tx: InstructionTranslator | None, value: Any, source: Any) -> Variable:
    """The variable for a NumPy object read from ``source`` (or computed while tracing)."""
    np = _np()
    guards = tx.output.guards if tx is not None and source is not None else None
    if isinstance(value, np.ndarray):
        if tx is None or source is None:
            raise Unsupported("a NumPy array the translator cannot reach from the frame", "it cannot become a graph input")
        return array_input(tx, value, source)
    if isinstance(value, np.generic) and type(source).__name__ == "Local" and calls.torch_dtype(value.dtype) is not None:
        return scalar_input(tx, value, source)
    if isinstance(value, (np.dtype, np.generic, np.finfo, np.iinfo)):
        if guards is not None:
            guards.add("type", source, value)
            guards.add("constant", source, value)
        return NumpyConstantVariable(value, source)
    if callable(value) and (isinstance(value, _FUNCTION_TYPES) or type(value).__name__ == "cython_function_or_method"
                            or type(value).__module__ == "numpy"):
        if guards is not None:
            guards.add("identity", source, value)
        return NumpyCallableVariable(value, source)
    return wrap_object(tx, value, source)  # a Generator, a memmap...: an ordinary object


def array_input(tx: InstructionTranslator, value: Any, source: Any) -> Variable:
    """An ndarray argument: a tensor input of the graph (``torch.from_numpy``, sharing its memory),
    guarded by type, dtype, shape and strides."""
    np = _np()
    if type(value) is not np.ndarray or value.dtype.hasobject or not value.flags.writeable \
            or not value.dtype.isnative or calls.torch_dtype(value.dtype) is None:
        # A subclass, object or string dtype, a read-only array: an ordinary object (NumPy calls on it break).
        return wrap_object(tx, value, source)
    known = tx.output.known_objects.get(id(value))
    if known is not None and known[0] is value:
        tx.output.note_alias(value, source)
        return known[1]
    guards = tx.output.guards
    guards.add("type", source, value)
    guards.add("constant", Attr(Attr(source, "dtype"), "str"), value.dtype.str)
    guards.add("constant", Attr(source, "shape"), tuple(value.shape))
    guards.add("constant", Attr(source, "strides"), tuple(value.strides))
    tensor = tx.output.add_converted_input(torch.from_numpy(value), source, calls.array_to_tensor)
    variable = NdarrayVariable(tensor)
    variable.source = source
    variable.shares_layout = True
    tx.output.note_alias(value, source)
    tx.output.known_objects[id(value)] = (value, variable)
    return variable


def scalar_input(tx: InstructionTranslator, value: Any, source: Any) -> Variable:
    """A NumPy scalar argument: a 0-d tensor input guarded by its type, so a new value is not a new compile.
    Read as a Python value (``float(s)``, ``if s > 1:``, an ``np.int64`` size), the function's own argument is
    specialised, its value a guard, as torch.compile does; a resume function's (often computed, new on every
    call) is not."""
    tx.output.guards.add("type", source, value)
    tensor = tx.output.add_converted_input(calls.scalar_to_tensor(value), source, calls.scalar_to_tensor,
                                            fresh=True)
    variable = NdarrayVariable(tensor, scalar=True)
    variable.source = source
    if not getattr(tx, "resumes_a_frame", False):
        variable.specialises = True
        variable.argument = (value, lambda guards=tx.output.guards: guards.add("constant", source, value))
    return variable


class NdarrayVariable(Variable):
    """A NumPy array (``scalar``: a NumPy scalar) whose values are the graph tensor ``tensor``."""

    mutable = True  # one array, one object: rebuilt once however many names hold it
    numpy_value = True
    #: the array is the tensor's memory as it is (``tensor.numpy()``, an array argument): its strides are
    #: the tensor's; an array torch._numpy computed may be laid out otherwise than NumPy's own
    shares_layout = False

    def __init__(self, tensor: TensorVariable, scalar: bool = False) -> None:
        self.tensor = tensor
        self.scalar = scalar
        self.source = None

    @property
    def dtype(self) -> Any:
        return calls.numpy_dtype(self.tensor.example.dtype)

    def python_type(self) -> type:
        return self.dtype.type if self.scalar else _np().ndarray

    #: (value, guard) of a NumPy scalar argument (or one computed from those and numbers) to specialise
    argument: tuple[Any, Any] | None = None

    def as_graph_arg(self) -> Any:
        if self.argument is not None and type(self.argument[0]) is _np().int64:
            # torch reads an np.int64 as the Python int it holds (NumpyConstantVariable.as_graph_arg)
            return self.as_python_constant().item()
        raise Unsupported(f"{self.describe()} passed to a torch operation", "torch functions take tensors, not NumPy "
                          "arrays (eager raises or converts)", hint="convert it with torch.from_numpy")

    as_example = as_graph_arg

    def as_python_constant(self) -> Any:
        if self.argument is not None:
            value, guard = self.argument
            guard()
            return value
        raise Unsupported(f"{self.describe()} used as a Python constant", "its values are only known when the graph runs")

    def is_python_constant(self) -> bool:
        return False

    def truth(self, tx: InstructionTranslator) -> bool:
        if self.argument is not None:
            return bool(self.as_python_constant())
        raise Unsupported("data-dependent control flow on a NumPy array", "a branch depends on an array's values")

    def stand_in(self, mode: str) -> Any:
        """A real NumPy value of this one's type and dtype (see :func:`_stand_in` for ``mode``)."""
        array = _stand_in_array(self.tensor.example, self.dtype, mode)
        return array[()] if self.scalar else array

    # -- attributes and methods --------------------------------------------------------------------
    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        example = self.tensor.example
        if name == "shape":
            return _containers.TupleVariable([tx.output.size_of(self.tensor, d) for d in range(example.dim())])
        if name == "dtype":
            return NumpyConstantVariable(self.dtype)
        if name in _METADATA_ATTRS:
            return ConstantVariable(getattr(self.stand_in("lazy"), name)) if not _symbolic(example) else \
                record(tx, calls.attribute(name), f"ndarray.{name}", [self], {})
        if name in _ARRAY_ATTRS:
            return record(tx, calls.attribute(name), f"ndarray.{name}", [self], {})
        if name == "strides" and self.shares_layout and not self.scalar and not _symbolic(example) \
                and not any(is_symbolic(s) for s in example.stride()):
            return ConstantVariable(tuple(int(s) * example.element_size() for s in example.stride()))
        if callable(getattr(_np().ndarray, name, None)):
            return NdarrayMethodVariable(self, name)
        raise Unsupported(f"ndarray attribute {name!r}", "the translator does not model it")

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable:
        if name in _VALUE_READS and self.argument is not None and not args and not kwargs:
            return wrap_frozen(getattr(self.as_python_constant(), name)())  # a scalar whose value is known (guarded)
        if name in _OPAQUE_METHODS:
            raise Unsupported(f"ndarray.{name}()", _OPAQUE_METHODS[name], hint="this runs outside the compiled graph")
        if name == "__len__" and not args:
            if self.tensor.example.dim() == 0:
                raise Unsupported("len() of a 0-d array", "eager raises TypeError")
            return tx.output.size_of(self.tensor, 0)
        if name == "copy" and not args and not kwargs:  # tnp's copy keeps the layout; the values are what count
            return record(tx, calls.method("copy"), "ndarray.copy", [self], {})
        in_place = name in _INPLACE_METHODS
        return record(tx, calls.method(name, in_place=in_place), f"ndarray.{name}", [self, *args], kwargs,
                      in_place=self if in_place else None, returns_none=in_place)

    def getitem(self, tx: InstructionTranslator, index: Variable) -> Variable:
        """``array[index]``."""
        return record(tx, calls.operator_call("getitem"), "ndarray.__getitem__", [self, index], {})

    def setitem(self, tx: InstructionTranslator, index: Variable, value: Variable) -> None:
        """``array[index] = value``: an in-place write to the tensor's memory."""
        record(tx, calls.operator_call("setitem"), "ndarray.__setitem__", [self, index, value], {}, in_place=self,
               returns_none=True)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        if self.tensor.example.dim() == 0:
            raise Unsupported("iteration over a 0-d array", "a 0-d array is not iterable")
        return [self.getitem(tx, ConstantVariable(i)) for i in range(int(self.tensor.example.shape[0]))]

    def reconstruct(self, codegen: PyCodegen) -> None:
        if self.source is not None:  # an argument: in-place writes went to its memory, it is still itself
            codegen.load_source(self.source)
            return
        codegen.call_const(calls.tensor_to_scalar if self.scalar else calls.tensor_to_array, 1,
                           lambda: codegen.load_graph_output(self.tensor))

    def describe(self) -> str:
        return f"NumPy {'scalar' if self.scalar else 'array'} {self.tensor.node.name}"

    def __repr__(self) -> str:
        ex = self.tensor.example
        return f"NdarrayVariable({self.tensor.node.name}, {ex.dtype}, {tuple(ex.shape)}, scalar={self.scalar})"


class NdarrayMethodVariable(Variable):
    """``array.method`` before it is called."""

    def __init__(self, array: NdarrayVariable, name: str) -> None:
        self.array = array
        self.name = name

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return self.array.call_method(tx, self.name, args, kwargs)

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.reconstruct(self.array)
        codegen.emit("LOAD_ATTR", self.name)

    def describe(self) -> str:
        return f"ndarray.{self.name}"


class NumpyConstantVariable(FrozenObjectVariable):
    """An immutable NumPy object known while tracing: a dtype, ``np.iinfo``/``np.finfo``, a NumPy scalar."""

    numpy_value = True  # its operators follow NumPy's rules (with a tensor: torch's, for a number)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        try:
            value = getattr(self.value, name)
        except AttributeError:
            return super().var_getattr(tx, name)  # raises the program's AttributeError
        if callable(value) and not isinstance(value, type):
            return super().var_getattr(tx, name)
        return wrap_frozen(value) if not is_numpy_object(value) else wrap(None, value, None)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        result = super().call_method(tx, name, args, kwargs)
        value = getattr(result, "value", None)
        return wrap(None, value, None) if is_numpy_object(value) else result

    def as_graph_arg(self) -> Any:
        np = _np()
        if isinstance(self.value, np.dtype):
            return self.value.name  # torch._numpy reads dtype names, and the graph keeps no NumPy objects
        if type(self.value) is np.int64:
            # torch reads it as the Python int it holds, in sizes, scalars and torch.tensor's dtype alike
            # (not np.int32 or np.float64, whose dtype torch.tensor keeps, nor np.bool_, which
            # torch.full and promotion take for a float)
            return self.value.item()
        raise Unsupported(f"NumPy object {self.value!r} as a graph argument", "not modelled")

    def describe(self) -> str:
        return f"NumPy {type(self.value).__name__} {self.value!r}"


class NumpyCallableVariable(FrozenObjectVariable):
    """A NumPy function, ufunc or class (``np.sin``, ``np.sum``, ``np.iinfo``, ``np.float32``)."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return call_numpy(tx, self.value, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        value = getattr(self.value, name, None)
        if value is not None and is_numpy_object(value):  # np.add.reduce, np.float32.__name__ aside
            return wrap(None, value, None)
        return super().var_getattr(tx, name)

    def as_graph_arg(self) -> Any:
        if isinstance(self.value, type) and issubclass(self.value, _np().generic):
            return _np().dtype(self.value).name  # dtype=np.float32
        raise Unsupported(f"{self.describe()} as a graph argument", "not modelled")

    def describe(self) -> str:
        return f"numpy.{getattr(self.value, '__name__', self.value)}"


#: What may meet a NumPy array in an operator, besides constants.
_OPERANDS = (NdarrayVariable, NumpyConstantVariable, NumpyCallableVariable)


# -- calls ---------------------------------------------------------------------------------------------
def call_numpy(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``fn(*args, **kwargs)`` for a NumPy callable: folded on constants when it only describes types
    (``np.iinfo``, ``np.dtype``, ``np.float32(2)``), recorded through ``torch._numpy`` otherwise."""
    name = calls.qualified_name(fn)
    module = _numpy_module_of(fn)
    for prefix, reason in _UNMODELLED_MODULES.items():
        if module.startswith(prefix) or name.startswith(prefix):
            raise Unsupported(f"{name}()", reason, hint="call it outside the compiled function")
    values = [*args, *kwargs.values()]
    if fn in calls.type_functions() or (isinstance(fn, type) and all(_constant(v) for v in values)):
        if not all(_constant(v) for v in values):
            raise Unsupported(f"{name}() of values known only at run time", "it describes types: its arguments "
                              "must be known while tracing")
        return _fold(fn, name, args, kwargs)
    if isinstance(fn, _np().ufunc) and values and all(_scalar_constant(v) for v in values):
        return _fold(fn, name, args, kwargs)  # np.sqrt(2): a NumPy scalar, immutable
    if getattr(fn, "__name__", "") in ("asarray", "asanyarray") and len(args) == 1 and not kwargs \
            and isinstance(args[0], NdarrayVariable) and not args[0].scalar:
        return args[0]  # eager hands back the very array
    target = calls.tnp_function(fn)
    if target is None:
        raise Unsupported(f"{name}()", "torch._numpy has no equivalent, so it cannot be recorded in the graph",
                          hint="it runs as ordinary Python, between compiled graphs")
    if getattr(fn, "__name__", "") not in _TAKES_TENSORS and any(_has_tensor(v) for v in values):
        raise Unsupported(f"{name}() of a torch tensor", "NumPy converts it, and may hand a tensor back: not modelled",
                          hint="convert it with .numpy() first")
    if target.in_place:  # np.copyto(dst, src), np.put(a, ...): they write into their first argument
        if not args or not isinstance(args[0], NdarrayVariable) or args[0].scalar:
            raise Unsupported(f"{name}() into something other than an array made in the trace", "not modelled")
        return record(tx, target, name, args, kwargs, real=fn, in_place=args[0], returns_none=True)
    out = kwargs.get("out")
    if out is not None and not isinstance(out, NdarrayVariable):
        raise Unsupported(f"{name}(out=...) into {out.describe()}", "not modelled")
    return record(tx, target, name, args, kwargs, real=fn, in_place=out)


def _fold(fn: Any, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    try:
        result = fn(*(_real(a) for a in args), **{k: _real(v) for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"{name} raised {type(exc).__name__}", str(exc), exc_type=type(exc)) from exc
    return wrap(None, result, None) if is_numpy_object(result) else wrap_frozen(result)


def _constant(value: Variable) -> bool:
    return isinstance(value, (NumpyConstantVariable, NumpyCallableVariable)) or value.is_python_constant()


def _scalar_constant(value: Variable) -> bool:
    if isinstance(value, NumpyConstantVariable):
        return isinstance(value.value, _np().generic)
    return value.is_python_constant() and type(value.as_python_constant()) in (bool, int, float, complex)


def _real(value: Variable) -> Any:
    return value.value if isinstance(value, (NumpyConstantVariable, NumpyCallableVariable)) else value.as_python_constant()


def _has_tensor(value: Variable) -> bool:
    if isinstance(value, TensorVariable):
        return True
    return any(_has_tensor(v) for v in getattr(value, "items", ()) if isinstance(v, Variable))


def _symbolic(example: torch.Tensor) -> bool:
    return any(is_symbolic(d) for d in example.shape)


def record(tx: InstructionTranslator, target: Any, name: str, args: list[Variable], kwargs: dict[str, Variable],
           real: Any = None, in_place: NdarrayVariable | None = None, returns_none: bool = False) -> Variable:
    """Record ``target`` (a ``torch._numpy`` call on tensors) after checking what real NumPy gives for
    ``real`` (``target``'s NumPy original; for methods and operators ``target`` knows it) on stand-ins.
    ``in_place``: the array the call writes into, which it returns (None when ``returns_none``)."""
    expected = _expected(name, real or target.numpy_original, args, kwargs)
    graph_args = [_graph_value(tx, a, name) for a in args]
    graph_kwargs = {k: _graph_value(tx, v, name) for k, v in kwargs.items()}
    result = tx.output.call_function(tx, target, graph_args, graph_kwargs)
    if in_place is not None:
        return ConstantVariable(None) if returns_none else in_place
    made = _as_numpy(result, expected, name)
    if isinstance(made, NdarrayVariable) and made.scalar and all(_constant(v) for v in [*args, *kwargs.values()]) \
            and type(expected[0]) is made.python_type():
        # ``np.prod(x.shape)``: a NumPy scalar of constants only, which real NumPy just computed on the values
        # themselves; read as a Python value (``int(n)``), it is that value, as a NumPy scalar argument's is
        made.specialises = True
        made.argument = (expected[0], lambda: None)
    return made


def _expected(name: str, real: Any, args: list[Variable], kwargs: dict[str, Variable]) -> tuple[Any, bool]:
    """What NumPy returns for ``real`` on stand-ins (and whether their shapes were the real ones)."""
    np = _np()
    arrays = _arrays([*args, *kwargs.values()])
    if int(np.__version__.split(".")[0]) < 2 and any(isinstance(a, NdarrayVariable) and a.tensor.example.dim() == 0
                                                     for a in arrays):
        raise Unsupported(f"{name}() of a 0-d array or NumPy scalar under NumPy {np.__version__}",
                          "NumPy 1 picks the result dtype by the value, which is unknown while tracing")
    examples = [v.tensor.example if isinstance(v, NdarrayVariable) else v.example for v in arrays]
    if any(map(_symbolic, examples)):
        mode = "ones"
    elif sum(e.numel() for e in examples) <= _STAND_IN_LIMIT:
        mode = "real"
    else:  # indexing touches only what it selects, and zeros' pages are only mapped when written
        mode = "lazy" if name.endswith(("__getitem__", "__setitem__")) else "ones"
    small = mode != "ones"
    try:
        stand_args = [_stand_in(a, mode) for a in args]
        stand_kwargs = {k: _stand_in(v, mode) for k, v in kwargs.items()}
        with np.errstate(all="ignore"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return real(*stand_args, **stand_kwargs), small
    except Unsupported:
        raise
    except Exception as exc:
        raise Unsupported(f"{name}()", f"NumPy raises {type(exc).__name__} on stand-in arrays of these dtypes and "
                          f"shapes ({exc}): it may on the real ones", hint="it runs as ordinary Python") from exc


def _arrays(values: list[Variable]) -> list[Variable]:
    """The arrays (and tensors) among a call's arguments, in tuples and lists too."""
    found: list[Variable] = []
    for v in values:
        if isinstance(v, (NdarrayVariable, TensorVariable)):
            found.append(v)
        elif isinstance(v, (_containers.TupleVariable, _containers.ListVariable)):
            found.extend(_arrays(v.items))
    return found


def _stand_in_array(example: torch.Tensor, dtype: Any, mode: str) -> Any:
    if mode == "ones":
        return _np().ones((1,) * example.dim(), dtype)
    shape = tuple(int(d) for d in example.shape)
    return _np().ones(shape, dtype) if mode == "real" else _np().zeros(shape, dtype)


def _stand_in(value: Variable, mode: str) -> Any:
    """A real NumPy value standing for ``value``: ``mode`` "real" is ones of the real shape, "ones" ones
    with every size 1 (big arrays: broadcasting and matmul still fit), "lazy" zeros of the real shape."""
    if isinstance(value, NdarrayVariable):
        return value.stand_in(mode)
    if isinstance(value, (NumpyConstantVariable, NumpyCallableVariable)):
        return value.value
    if isinstance(value, TensorVariable):
        example = value.example
        if example.requires_grad or example.device.type != "cpu" or calls.numpy_dtype(example.dtype) is None:
            raise Unsupported("NumPy on a tensor that requires grad, is not on the CPU or has no NumPy dtype",
                              "eager raises")
        return _stand_in_array(example, calls.numpy_dtype(example.dtype), mode)
    if isinstance(value, _containers.TupleVariable) and type(value) is _containers.TupleVariable:
        return tuple(_stand_in(v, mode) for v in value.items)
    if isinstance(value, _containers.ListVariable):
        return [_stand_in(v, mode) for v in value.items]
    if value.is_python_constant():
        return value.as_python_constant()
    raise Unsupported(f"{value.describe()} as an argument of a NumPy call", "not modelled")


def _graph_value(tx: InstructionTranslator, value: Variable, name: str) -> Variable:
    """What stands for ``value`` in the recorded call: arrays are their tensors, NumPy scalars 0-d tensors."""
    if isinstance(value, NdarrayVariable):
        return value.tensor
    if isinstance(value, (NumpyConstantVariable, NumpyCallableVariable)) and not isinstance(value.value, _np().generic):
        return ConstantVariable(value.as_graph_arg())  # a dtype: its name
    if isinstance(value, NumpyConstantVariable):
        scalar = value.value
        dtype = calls.torch_dtype(scalar.dtype)
        if dtype is None:
            raise Unsupported(f"{name}() with a NumPy {type(scalar).__name__}", "its dtype has no torch equivalent")
        return tx.output.call_function(tx, torch.full, [ConstantVariable(()), ConstantVariable(scalar.item())],
                                       {"dtype": ConstantVariable(dtype)})
    if isinstance(value, _containers.TupleVariable) and type(value) is _containers.TupleVariable:
        return _containers.TupleVariable([_graph_value(tx, v, name) for v in value.items])
    if isinstance(value, _containers.ListVariable):
        return _containers.ListVariable([_graph_value(tx, v, name) for v in value.items])
    return value


def _as_numpy(result: Variable, expected: tuple[Any, bool], name: str) -> Variable:
    """The recorded result as the program sees it, checked against NumPy's on the stand-ins."""
    np = _np()
    real, small = expected
    if isinstance(result, TensorVariable):
        if not isinstance(real, (np.ndarray, np.generic)):
            raise _differs(name, f"an array where NumPy gives {type(real).__name__}")
        dtype = calls.numpy_dtype(result.example.dtype)
        if dtype != real.dtype:
            raise _differs(name, f"dtype {dtype} where NumPy gives {real.dtype}")
        if small and tuple(result.example.shape) != real.shape:
            raise _differs(name, f"shape {tuple(result.example.shape)} where NumPy gives {real.shape}")
        return NdarrayVariable(result, scalar=isinstance(real, np.generic))
    if isinstance(result, (_containers.TupleVariable, _containers.ListVariable)):
        if type(real) not in (list, tuple) or len(real) != len(result.items):
            raise _differs(name, f"a {result.python_type().__name__} where NumPy gives {type(real).__name__}")
        items = [_as_numpy(item, (r, small), name) for item, r in zip(result.items, real)]
        # the container NumPy makes (meshgrid: a tuple in NumPy 2, a list in torch._numpy), the items checked above
        return _containers.TupleVariable(items) if type(real) is tuple else _containers.ListVariable(items)
    if is_constant_value(real) and result.is_python_constant() and small:  # sizes 1 prove nothing about metadata
        value = result.as_python_constant()
        if type(value) is not type(real) or value != real:
            raise _differs(name, f"{value!r} where NumPy gives {real!r}")
        return result
    raise _differs(name, f"{result.describe()} where NumPy gives {type(real).__name__}")


def _differs(name: str, what: str) -> Unsupported:
    return Unsupported(f"{name}()", f"torch._numpy gives {what}", hint="it runs as ordinary Python")


# -- the torch side ------------------------------------------------------------------------------------
def tensor_numpy(tx: InstructionTranslator, tensor: TensorVariable, args: list[Variable],
                 kwargs: dict[str, Variable]) -> Variable:
    """``tensor.numpy()``: an ndarray sharing the tensor's memory (eager refuses tensors that need grad)."""
    force = kwargs.get("force", args[0] if args else ConstantVariable(False))
    if len(args) > 1 or set(kwargs) - {"force"} or not force.is_python_constant():
        raise Unsupported("Tensor.numpy() with these arguments", "not modelled")
    example = tensor.example
    if calls.numpy_dtype(example.dtype) is None:
        raise Unsupported(f"Tensor.numpy() of a {example.dtype} tensor", "NumPy has no such dtype: eager raises")
    if force.as_python_constant():
        alias = tx.output.call_method(tx, "clone", [tx.output.call_method(tx, "detach", [tensor], {})], {})
    else:
        if (example.requires_grad and tx.output.grad_enabled) or example.device.type != "cpu" \
                or example.is_conj() or example.is_neg():
            raise Unsupported("Tensor.numpy() of a tensor that requires grad or is not on the CPU", "eager raises",
                              hint="call .detach().cpu() first")
        alias = tx.output.call_method(tx, "detach", [tensor], {})
        array = NdarrayVariable(alias)
        array.shares_layout = True
        return array
    return NdarrayVariable(alias)
