"""Guard kinds: what a captured graph assumed about one value (or about torch's global state).

Every guard is an immutable value object: it has its source(s), a one-line ``describe()``, a cost
class used to order checks, and ``check(value)`` / ``explain(value)`` used by the pure-Python path and by
``GuardFn.why_failed``. Bad input fails at construction with a ``TypeError`` or ``ValueError``.

Failure semantics: a guard that cannot decide - its source cannot be read, or reading or comparing the
value raises an ``Exception`` (an ``__eq__`` that raises, a ``__len__`` that raises, a property that
raises) - *fails*. The exception is not propagated (``BaseException`` that is not an ``Exception``,
such as ``KeyboardInterrupt``, still is).
"""

from __future__ import annotations

import ast
import enum
import math
import types
import weakref
from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import torch

from . import _state
from .sources import Source

__all__ = [
    "ConstantMatch",
    "DictKeys",
    "GlobalState",
    "Guard",
    "GuardFailure",
    "Identity",
    "IsNone",
    "Length",
    "NoAliasing",
    "NotNone",
    "Relation",
    "TensorMatch",
    "TypeMatch",
]

_MAX_REPR = 80


def short_repr(value: Any) -> str:
    """A bounded ``repr`` that never raises (hostile ``__repr__`` included)."""
    try:
        text = repr(value)
    except Exception as exc:
        text = f"<{type(value).__name__} object (repr raised {type(exc).__name__})>"
    if len(text) > _MAX_REPR:
        text = text[: _MAX_REPR - 3] + "..."
    return text


def type_name(tp: type) -> str:
    module = getattr(tp, "__module__", "builtins")
    qualname = getattr(tp, "__qualname__", getattr(tp, "__name__", "?"))
    if module == "builtins":
        return qualname
    if module.startswith("torch") and qualname in ("Tensor", "Size", "dtype", "device"):
        return f"torch.{qualname}"
    if module == "torch.nn.parameter":
        return f"torch.nn.{qualname}"
    return f"{module}.{qualname}"


class GuardFailure(str):
    """Why a guard failed: reads like ``"L['x'].shape[0] == 8, got 16"``.

    A ``str`` subclass carrying the failing ``guard``, the ``expected`` condition
    (``"L['x'].shape[0] == 8"``) and what was ``seen`` (``"16"``).
    """

    guard: Guard
    expected: str
    seen: str

    def __new__(cls, guard: Guard, expected: str, seen: str) -> GuardFailure:
        self = super().__new__(cls, f"{expected}, got {seen}")
        self.guard = guard
        self.expected = expected
        self.seen = seen
        return self


def object_text(obj: Any) -> str:
    """A short, recognisable description of an object compared by identity."""
    if isinstance(obj, types.ModuleType):
        return f"<module {obj.__name__!r}>"
    if isinstance(obj, type):
        return f"<class {type_name(obj)!r}>"
    if isinstance(obj, (types.FunctionType, types.BuiltinFunctionType, types.MethodType)):
        return f"<function {getattr(obj, '__qualname__', getattr(obj, '__name__', '?'))}>"
    return short_repr(obj)


class _Ref:
    """A reference to an object a guard compares against: weak when the object allows it.

    A guard must not keep a user's module or class alive (entries of ``Module.forward`` are shared by
    every instance); when the referent dies the guard can never pass again, which is right.
    """

    __slots__ = ("__weakref__", "ident", "strong", "text", "weak")

    def __init__(self, obj: Any) -> None:
        self.ident = id(obj)
        self.text = object_text(obj)
        try:
            self.weak = weakref.ref(obj)
            self.strong = None
        except TypeError:
            self.weak = None
            self.strong = obj

    def get(self) -> Any:
        """The referent, or a fresh sentinel that nothing is identical to once it died."""
        if self.weak is None:
            return self.strong
        obj = self.weak()
        return _DEAD if obj is None else obj

    @property
    def alive(self) -> bool:
        return self.weak is None or self.weak() is not None


_DEAD = object()


class Guard:
    """Base class of every guard kind."""

    __slots__ = ("__weakref__", "_hash")
    #: short name of the kind ("type", "id", "const", ...)
    kind: ClassVar[str] = "guard"
    #: cost class: cheaper classes run first (ties: shallower sources first, then insertion order)
    cost: ClassVar[int] = 5

    # -- identity ---------------------------------------------------------------------------------
    def _key(self) -> tuple:
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not type(self):
            return NotImplemented
        return self._key() == other._key()

    def __hash__(self) -> int:
        try:
            return self._hash
        except AttributeError:
            h = hash((type(self).__name__, self._key()))
            object.__setattr__(self, "_hash", h)
            return h

    def __setattr__(self, name: str, value: Any) -> None:
        raise AttributeError(f"{type(self).__name__} is immutable")

    # -- what it guards ---------------------------------------------------------------------------
    @property
    def sources(self) -> tuple[Source, ...]:
        """Every source this guard reads (empty for global state)."""
        return ()

    @property
    def source(self) -> Source | None:
        """The source this guard reads, for single-source guards."""
        srcs = self.sources
        return srcs[0] if len(srcs) == 1 else None

    def describe(self) -> str:
        """One line saying what the guard checks."""
        raise NotImplementedError

    def explain(self, *values: Any) -> tuple[str, str] | None:
        """``None`` when ``values`` (one per source) pass, else ``(expected, seen)`` texts.

        May raise: callers treat an exception as a failure.
        """
        raise NotImplementedError

    def check(self, *values: Any) -> bool:
        """Whether ``values`` (one per source) pass; an exception counts as a failure."""
        try:
            return self.explain(*values) is None
        except Exception:
            return False

    def implies(self) -> tuple[Guard, ...]:
        """Weaker guards this one makes redundant (dropped by ``compile``)."""
        return ()

    @property
    def alive(self) -> bool:
        """False once an object this guard compares by identity has died (it can never pass again)."""
        return True

    def __str__(self) -> str:
        return self.describe()

    def __repr__(self) -> str:
        return f"<{type(self).__name__}: {self.describe()}>"


def _set(obj: Guard, **fields: Any) -> None:
    for name, value in fields.items():
        object.__setattr__(obj, name, value)


def _check_source(kind: str, source: object) -> Source:
    if not isinstance(source, Source):
        raise TypeError(f"{kind} needs a loom_guards Source, got {type(source).__name__} {source!r}")
    return source


class _OneSource(Guard):
    __slots__ = ("_source",)

    @property
    def sources(self) -> tuple[Source, ...]:
        return (self._source,)

    @property
    def source(self) -> Source:
        return self._source


# -- None / not None ----------------------------------------------------------------------------------


class IsNone(_OneSource):
    """``source is None``."""

    __slots__ = ()
    kind = "none"
    cost = 0

    def __init__(self, source: Source) -> None:
        _set(self, _source=_check_source("IsNone", source))

    def _key(self) -> tuple:
        return (self._source,)

    def describe(self) -> str:
        return f"{self._source} is None"

    def explain(self, value: Any) -> tuple[str, str] | None:
        return None if value is None else (self.describe(), short_repr(value))


class NotNone(_OneSource):
    """``source is not None``."""

    __slots__ = ()
    kind = "not_none"
    cost = 0

    def __init__(self, source: Source) -> None:
        _set(self, _source=_check_source("NotNone", source))

    def _key(self) -> tuple:
        return (self._source,)

    def describe(self) -> str:
        return f"{self._source} is not None"

    def explain(self, value: Any) -> tuple[str, str] | None:
        return None if value is not None else (self.describe(), "None")


# -- type and identity --------------------------------------------------------------------------------


class TypeMatch(_OneSource):
    """``type(source) is expected_type`` (exact: a subclass fails)."""

    __slots__ = ("_ref", "type_text")
    kind = "type"
    cost = 1

    def __new__(cls, source: Source, expected_type: type) -> Guard:
        if expected_type is type(None):
            return IsNone(source)  # the same check, one canonical form
        return super().__new__(cls)

    def __init__(self, source: Source, expected_type: type) -> None:
        _check_source("TypeMatch", source)
        if not isinstance(expected_type, type):
            raise TypeError(f"TypeMatch needs a type, got {type(expected_type).__name__} {expected_type!r}")
        _set(self, _source=source, _ref=_Ref(expected_type), type_text=type_name(expected_type))

    @property
    def expected_type(self) -> type | None:
        """The type (None once it died)."""
        obj = self._ref.get()
        return None if obj is _DEAD else obj

    def _key(self) -> tuple:
        return (self._source, self._ref.ident)

    @property
    def alive(self) -> bool:
        return self._ref.alive

    def describe(self) -> str:
        return f"type({self._source}) is {self.type_text}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if type(value) is self._ref.get():
            return None
        return (self.describe(), type_name(type(value)))

    def implies(self) -> tuple[Guard, ...]:
        return (NotNone(self._source),)


class Identity(_OneSource):
    """``source is obj``: for functions, modules, classes and global objects.

    The guard holds ``obj`` weakly when it can: it does not keep a module alive, and once ``obj`` died
    the guard fails for ever (``alive`` turns False).
    """

    __slots__ = ("_ref", "_type_ref")
    kind = "id"
    cost = 1

    def __new__(cls, source: Source, obj: Any) -> Guard:
        if obj is None:
            return IsNone(source)  # the same check, one canonical form
        return super().__new__(cls)

    def __init__(self, source: Source, obj: Any) -> None:
        _set(self, _source=_check_source("Identity", source), _ref=_Ref(obj), _type_ref=_Ref(type(obj)))

    @property
    def obj(self) -> Any:
        """The object (None once it died)."""
        obj = self._ref.get()
        return None if obj is _DEAD else obj

    @property
    def alive(self) -> bool:
        return self._ref.alive

    def _key(self) -> tuple:
        return (self._source, self._ref.ident)

    def describe(self) -> str:
        return f"{self._source} is {self._ref.text} (id {self._ref.ident:#x})"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if value is self._ref.get():
            return None
        return (f"{self._source} is {self._ref.text}", f"{object_text(value)} (id {id(value):#x})")

    def implies(self) -> tuple[Guard, ...]:
        tp = self._type_ref.get()
        if tp is _DEAD:
            return (NotNone(self._source),)
        return (TypeMatch(self._source, tp), NotNone(self._source))


# -- constants ----------------------------------------------------------------------------------------

_TORCH_SINGLETONS = (torch.dtype, torch.layout, torch.memory_format)
_SCALARS = (bool, int, float, complex, str, bytes, range, type(None), type(Ellipsis))


def _constant_error(value: Any) -> str | None:
    """Why ``value`` cannot be a ConstantMatch constant (None when it can)."""
    tp = type(value)
    if tp in _SCALARS or tp in _TORCH_SINGLETONS or tp is torch.device:
        return None
    if isinstance(value, enum.Enum):
        try:
            hash(value)
        except TypeError:
            return f"enum member {value!r} is unhashable"
        return None
    if tp is tuple or tp is torch.Size or (isinstance(value, tuple) and hasattr(tp, "_fields")):
        for item in value:
            err = _constant_error(item)
            if err:
                return err
        return None
    if tp is frozenset:
        for item in value:
            err = _constant_error(item)
            if err:
                return err
        return None
    try:
        hash(value)
    except TypeError:
        return f"{type_name(tp)} {short_repr(value)} is unhashable"
    return f"{type_name(tp)} {short_repr(value)} is not a constant"


def _float_key(x: float) -> str:
    return float.hex(x)


def const_key(value: Any) -> Any:
    """A hashable key that tells apart constants ``==`` confuses (1, 1.0, True; 0.0, -0.0; nan)."""
    tp = type(value)
    if tp is float:
        return (float, _float_key(value))
    if tp is complex:
        return (complex, _float_key(value.real), _float_key(value.imag))
    if isinstance(value, tuple):
        return (tp, tuple(const_key(v) for v in value))
    if tp is frozenset:
        return (frozenset, frozenset(const_key(v) for v in value))
    if isinstance(value, enum.Enum) or tp in _TORCH_SINGLETONS:
        return (tp, id(value))
    return (tp, value)


def float_eq(a: float, b: float) -> bool:
    """Same float: equal with the same sign of zero, or both NaN."""
    if a == b:
        return a != 0.0 or math.copysign(1.0, a) == math.copysign(1.0, b)
    return a != a and b != b


def const_eq(value: Any, expected: Any) -> bool:
    """Type-strict equality of a value with a constant (``3 != 3.0 != True``; ``-0.0 != 0.0``).

    ``value`` may be hostile: its type is checked before any of its methods runs.
    """
    if value is expected:
        return True
    tp = type(expected)
    if type(value) is not tp:
        return False
    if tp is float:
        return float_eq(value, expected)
    if tp is complex:
        return float_eq(value.real, expected.real) and float_eq(value.imag, expected.imag)
    if isinstance(expected, tuple):
        if tuple.__len__(value) != tuple.__len__(expected):
            return False
        return all(const_eq(a, b) for a, b in zip(tuple.__iter__(value), tuple.__iter__(expected)))
    if isinstance(expected, enum.Enum) or tp in _TORCH_SINGLETONS:
        return False  # singletons: identity already failed
    return bool(value == expected)


class ConstantMatch(_OneSource):
    """``source == value`` with the exact type of ``value`` (so ``3`` does not match ``3.0`` or ``True``).

    ``value`` must be a constant: None, bool, int, float, complex, str, bytes, range, Ellipsis, an enum
    member, torch.dtype / device / layout / memory_format, or a tuple (plain, named, torch.Size) or
    frozenset of constants. Floats compare by value with the sign of zero, and NaN matches NaN.
    ``ConstantMatch(s, None)`` is ``IsNone(s)``.
    """

    __slots__ = ("_ckey", "value")
    kind = "const"
    cost = 3

    def __new__(cls, source: Source, value: Any) -> Guard:
        if value is None:
            return IsNone(source)
        return super().__new__(cls)

    def __init__(self, source: Source, value: Any) -> None:
        _check_source("ConstantMatch", source)
        err = _constant_error(value)
        if err:
            raise TypeError(
                f"ConstantMatch needs a constant (None, bool, int, float, complex, str, bytes, enum, torch "
                f"dtype/device, or a tuple or frozenset of those): {err}; guard it with Identity or "
                f"TypeMatch instead"
            )
        _set(self, _source=source, value=value, _ckey=const_key(value))

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"{self._source} == {short_repr(self.value)}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        if const_eq(value, self.value):
            return None
        seen = short_repr(value)
        if type(value) is not type(self.value):
            seen += f" ({type_name(type(value))})"
        return (self.describe(), seen)

    def implies(self) -> tuple[Guard, ...]:
        out: list[Guard] = [TypeMatch(self._source, type(self.value)), NotNone(self._source)]
        if isinstance(self.value, tuple):
            out.append(Length(self._source, len(self.value)))
        return tuple(out)


# -- lengths and dict keys ----------------------------------------------------------------------------


class Length(_OneSource):
    """``len(source) == n``."""

    __slots__ = ("n",)
    kind = "len"
    cost = 2

    def __init__(self, source: Source, n: int) -> None:
        _check_source("Length", source)
        if type(n) is not int:
            raise TypeError(f"Length needs an int, got {type(n).__name__} {n!r}")
        if n < 0:
            raise ValueError(f"Length needs a length >= 0, got {n}")
        _set(self, _source=source, n=n)

    def _key(self) -> tuple:
        return (self._source, self.n)

    def describe(self) -> str:
        return f"len({self._source}) == {self.n}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        n = len(value)
        return None if n == self.n else (self.describe(), str(n))

    def implies(self) -> tuple[Guard, ...]:
        return (NotNone(self._source),)


def dict_keys_of(value: Any) -> tuple:
    """The keys of a mapping in iteration order (a plain dict without calling any of its methods)."""
    if type(value) is dict:
        return tuple(dict.__iter__(value))
    keys = tuple(value.keys())
    if len(value) != len(keys):
        raise ValueError("len() disagrees with keys()")
    return keys


class DictKeys(_OneSource):
    """``list(source.keys()) == keys``: the same keys in the same order (a dict or any mapping)."""

    __slots__ = ("_ckey", "keys")
    kind = "dict_keys"
    cost = 4

    def __init__(self, source: Source, keys: Iterable[Any]) -> None:
        _check_source("DictKeys", source)
        if isinstance(keys, (str, bytes)) or not isinstance(keys, Iterable):
            raise TypeError(f"DictKeys needs an iterable of keys, got {type(keys).__name__}")
        keys = tuple(keys)
        for key in keys:
            err = _constant_error(key)
            if err:
                raise TypeError(f"DictKeys keys must be constants: {err}")
        _set(self, _source=source, keys=keys, _ckey=const_key(keys))

    def _key(self) -> tuple:
        return (self._source, self._ckey)

    def describe(self) -> str:
        return f"list({self._source}.keys()) == {short_repr(list(self.keys))}"

    def explain(self, value: Any) -> tuple[str, str] | None:
        seen = dict_keys_of(value)
        if const_eq(seen, self.keys):
            return None
        return (self.describe(), short_repr(list(seen)))

    def implies(self) -> tuple[Guard, ...]:
        return (Length(self._source, len(self.keys)), NotNone(self._source))


# -- tensors ------------------------------------------------------------------------------------------


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


# -- several sources ----------------------------------------------------------------------------------


class NoAliasing(Guard):
    """The sources hold pairwise distinct objects (tensors a graph assumed to be distinct inputs)."""

    __slots__ = ("_sources",)
    kind = "no_aliasing"
    cost = 5

    def __init__(self, sources: Iterable[Source]) -> None:
        srcs: list[Source] = []
        for s in sources:
            _check_source("NoAliasing", s)
            if s not in srcs:
                srcs.append(s)
        if len(srcs) < 2:
            raise ValueError("NoAliasing needs at least two distinct sources")
        _set(self, _sources=tuple(srcs))

    @property
    def sources(self) -> tuple[Source, ...]:
        return self._sources

    def _key(self) -> tuple:
        return (frozenset(self._sources),)

    def describe(self) -> str:
        return f"{', '.join(map(str, self._sources))} are distinct objects"

    def explain(self, *values: Any) -> tuple[str, str] | None:
        seen: dict[int, Source] = {}
        for src, value in zip(self._sources, values):
            other = seen.get(id(value))
            if other is not None:
                return (f"{other} is not {src}", "the same object")
            seen[id(value)] = src
        return None


_REL_BINOPS = (ast.Add, ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)
_REL_CMPOPS = (ast.Eq, ast.NotEq, ast.Lt, ast.LtE, ast.Gt, ast.GtE)


class Relation(Guard):
    """A relation over ints read from sources, e.g. sizes under dynamic shapes: ``s0 > 1``, ``s0 == s1``.

    ``expr`` is a Python expression over the names of ``symbols`` (each a source whose value must be an
    int, typically a :class:`~loom_guards.TensorSize`) using int literals, ``+ - * // % **``, unary ``-``,
    comparisons, ``and`` / ``or`` / ``not``, and ``min`` / ``max`` / ``abs``. It is parsed and checked at
    construction. A symbol whose value is not an int fails the guard.
    """

    __slots__ = ("_code", "expr", "names", "symbols")
    kind = "relation"
    cost = 8

    def __init__(self, expr: str, symbols: Mapping[str, Source]) -> None:
        if not isinstance(expr, str):
            raise TypeError(f"Relation expr must be a str, got {type(expr).__name__}")
        if not isinstance(symbols, Mapping) or not symbols:
            raise TypeError("Relation needs a non-empty mapping of symbol names to sources")
        for name, src in symbols.items():
            if not isinstance(name, str) or not name.isidentifier() or name in ("min", "max", "abs"):
                raise ValueError(f"Relation symbol names must be identifiers, got {name!r}")
            _check_source("Relation", src)
        try:
            tree = ast.parse(expr, mode="eval")
        except SyntaxError as exc:
            raise ValueError(f"Relation expr {expr!r} is not a Python expression: {exc.msg}") from None
        used = _validate_relation(tree.body, set(symbols))
        names = tuple(n for n in symbols if n in used)
        if not names:
            raise ValueError(f"Relation expr {expr!r} uses none of its symbols")
        code = compile(tree, f"<relation {expr}>", "eval")
        _set(
            self,
            expr=ast.unparse(tree),
            symbols={n: symbols[n] for n in names},
            names=names,
            _code=code,
        )

    @property
    def sources(self) -> tuple[Source, ...]:
        return tuple(self.symbols[n] for n in self.names)

    def _key(self) -> tuple:
        return (self.expr, tuple((n, self.symbols[n]) for n in self.names))

    def describe(self) -> str:
        where = ", ".join(f"{n} = {self.symbols[n]}" for n in self.names)
        return f"{self.expr} (where {where})"

    def evaluate(self, *values: Any) -> bool:
        for v in values:
            if type(v) is not int:
                return False
        env = dict(zip(self.names, values))
        env.update(min=min, max=max, abs=abs)
        return bool(eval(self._code, {"__builtins__": {}}, env))

    def explain(self, *values: Any) -> tuple[str, str] | None:
        if self.evaluate(*values):
            return None
        seen = ", ".join(f"{n}={short_repr(v)}" for n, v in zip(self.names, values))
        return (self.expr, seen)


def _validate_relation(node: ast.AST, allowed: set[str]) -> set[str]:
    used: set[str] = set()

    def visit(n: ast.AST) -> None:
        if isinstance(n, ast.Name):
            if n.id not in allowed:
                raise ValueError(f"Relation uses unknown name {n.id!r}")
            used.add(n.id)
        elif isinstance(n, ast.Constant):
            if type(n.value) not in (int, bool):
                raise ValueError(f"Relation constants must be ints, got {n.value!r}")
        elif isinstance(n, ast.BinOp):
            if not isinstance(n.op, _REL_BINOPS):
                raise ValueError(f"Relation operator {type(n.op).__name__} is not allowed")
            visit(n.left)
            visit(n.right)
        elif isinstance(n, ast.UnaryOp):
            if not isinstance(n.op, (ast.USub, ast.UAdd, ast.Not)):
                raise ValueError(f"Relation operator {type(n.op).__name__} is not allowed")
            visit(n.operand)
        elif isinstance(n, ast.BoolOp):
            for v in n.values:
                visit(v)
        elif isinstance(n, ast.Compare):
            if not all(isinstance(op, _REL_CMPOPS) for op in n.ops):
                raise ValueError("Relation comparisons must be == != < <= > >=")
            visit(n.left)
            for c in n.comparators:
                visit(c)
        elif isinstance(n, ast.Call):
            if not (isinstance(n.func, ast.Name) and n.func.id in ("min", "max", "abs")) or n.keywords:
                raise ValueError("Relation calls are limited to min(), max() and abs()")
            for a in n.args:
                visit(a)
        else:
            raise ValueError(f"Relation expression element {type(n).__name__} is not allowed")

    visit(node)
    return used


# -- global torch state -------------------------------------------------------------------------------


class GlobalState(Guard):
    """torch's global (thread-local) state is what it was: grad mode, inference mode, default dtype,
    deterministic algorithms (and warn-only), autocast (enabled devices and their dtypes, cache),
    torch-function state and mode stack depth, dispatch mode stack depth, functorch transforms.

    ``GlobalState()`` captures every field now; ``GlobalState({"grad_mode": True})`` checks only the
    fields given. ``GlobalState.fields()`` lists the field names.
    """

    __slots__ = ("values",)
    kind = "global_state"
    cost = 5

    def __init__(self, values: Mapping[str, Any] | None = None) -> None:
        if values is None:
            captured = _state.capture()
        else:
            if not isinstance(values, Mapping):
                raise TypeError(f"GlobalState needs a mapping of field values, got {type(values).__name__}")
            captured = {name: _state.validate(name, value) for name, value in values.items()}
            if not captured:
                raise ValueError("GlobalState needs at least one field")
        ordered = {name: captured[name] for name in _state.FIELD_ORDER if name in captured}
        _set(self, values=ordered)

    @staticmethod
    def fields() -> tuple[str, ...]:
        return _state.FIELD_ORDER

    def _key(self) -> tuple:
        return tuple(self.values.items())

    def describe(self) -> str:
        parts = ", ".join(f"{k}={_state_text(k, v)}" for k, v in self.values.items())
        return f"global state: {parts}"

    def explain(self) -> tuple[str, str] | None:
        for name, want in self.values.items():
            got = _state.read(name)
            if got != want:
                return (f"{_state.FIELDS[name][1]} == {_state_text(name, want)}", _state_text(name, got))
        return None

    def merged_with(self, other: GlobalState) -> GlobalState | None:
        """One guard checking both field sets (None when a field contradicts)."""
        values = dict(self.values)
        for name, value in other.values.items():
            if name in values and values[name] != value:
                return None
            values[name] = value
        return GlobalState(values)


def _state_text(name: str, value: Any) -> str:
    if name == "autocast":
        if not value:
            return "off"
        return "[" + ", ".join(f"{dev}:{str(dt).replace('torch.', '')}" for dev, dt in value) + "]"
    return str(value)

