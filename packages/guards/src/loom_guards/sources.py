"""Sources: how a value is reached from a frame.

A source is a small immutable value object. Two sources are equal when they reach the same value the
same way; ``str(source)`` is the Python expression that reaches it, written over four roots:

* ``L`` - the frame's locals (its arguments at entry), ``L['x']``
* ``G`` - the frame's globals, ``G['W']``
* ``B`` - the frame's builtins, ``B['len']``
* ``C`` - the contents of the function's closure cells, by free-variable name, ``C['scale']``

Chained sources (``Attr``, ``Item``, ...) hang off a base source: ``L['self'].layers[0].weight``.
``source.fetch(frame)`` reads the value from a frame view (anything with ``f_locals``, ``f_globals``,
``f_builtins``, ``closure`` and ``f_code``) or from a plain mapping of locals; it raises the error the
access itself raises (``KeyError`` for a missing local or global, ``AttributeError``, ...).
"""

from __future__ import annotations

import builtins as _builtins_module
import enum
import keyword
import types
from collections.abc import Mapping
from typing import Any

import torch

from ._keyed import Keyed

__all__ = [
    "Attr",
    "Builtin",
    "Closure",
    "Const",
    "DictAttr",
    "Global",
    "Item",
    "Local",
    "ModuleBuffer",
    "ModuleParam",
    "Source",
    "Submodule",
    "TensorSize",
    "TypeOf",
]

# Item keys must hash and compare as the same value on every call: literals (and tuples of them), and the
# immutable named values a program keys dicts by, which a guard binds as objects rather than prints.
_KEY_TYPES = (int, str, bytes, bool, float, type(None))
_NAMED_KEY_TYPES = (enum.Enum, torch.dtype, torch.device)


def _check_name(what: str, name: object) -> str:
    if not isinstance(name, str):
        raise TypeError(f"{what} name must be a str, got {type(name).__name__} {name!r}")
    if not name:
        raise ValueError(f"{what} name must not be empty")
    return name


def _check_base(what: str, base: object) -> Source:
    if not isinstance(base, Source):
        raise TypeError(f"{what} base must be a loom_guards Source, got {type(base).__name__} {base!r}")
    return base


def _check_key(key: object) -> None:
    if isinstance(key, tuple) or type(key) is frozenset:  # a frozenset of literals hashes the same on every call
        for k in key:
            _check_key(k)
        return
    if type(key) not in _KEY_TYPES and not isinstance(key, _NAMED_KEY_TYPES):
        raise TypeError(
            f"Item key must be an int, str, bytes, bool, float, None, an enum member, a dtype, a device "
            f"or a tuple or frozenset of those, "
            f"got {type(key).__name__} {key!r}"
        )


def _attr_expr(base: str, name: str) -> str:
    if name.isidentifier() and not keyword.iskeyword(name):
        return f"{base}.{name}"
    return f"getattr({base}, {name!r})"


class FrameContext:
    """The four roots of one frame, resolved once: used by ``Source.fetch`` and ``GuardFn.why_failed``."""

    __slots__ = ("builtins", "closure", "globals", "locals")

    def __init__(
        self,
        frame: Any,
        f_globals: Mapping[str, Any] | None = None,
        f_builtins: Any = None,
        closure: Any = None,
    ) -> None:
        code = None
        # like the compiled checks: a dict, else a frame view (f_locals), else any mapping
        if frame is None or isinstance(frame, dict) or (
            not hasattr(frame, "f_locals") and isinstance(frame, Mapping)
        ):
            self.locals = frame if frame is not None else {}
            g, b, c = None, None, None
        else:
            try:
                self.locals = frame.f_locals
            except AttributeError:
                raise TypeError(
                    f"a guard needs a frame view (with f_locals) or a mapping of locals, got {type(frame).__name__}"
                ) from None
            g = getattr(frame, "f_globals", None)
            b = getattr(frame, "f_builtins", None)
            c = getattr(frame, "closure", None)
            code = getattr(frame, "f_code", None)
        self.globals = g if g is not None else f_globals
        b = b if b is not None else f_builtins
        if b is None:
            b = _builtins_module.__dict__
        elif isinstance(b, types.ModuleType):
            b = b.__dict__
        self.builtins = b
        c = c if c is not None else closure
        self.closure = _closure_mapping(c, code)


def _closure_mapping(closure: Any, code: Any) -> Mapping[str, Any] | None:
    """Normalise a closure to ``{free variable name: cell or value}`` (None when there is none)."""
    if closure is None:
        return None
    if isinstance(closure, Mapping):
        return closure
    if isinstance(closure, types.FunctionType):
        code, closure = closure.__code__, closure.__closure__ or ()
    freevars = getattr(code, "co_freevars", None)
    if freevars is None:
        return None
    return dict(zip(freevars, closure))


def closure_value(closure: Mapping[str, Any] | None, name: str) -> Any:
    if closure is None:
        raise KeyError(f"no closure available for free variable {name!r}")
    cell = closure[name]
    if isinstance(cell, types.CellType):
        return cell.cell_contents  # ValueError when the cell is empty
    return cell


class Source(Keyed):
    """How a value is reached from a frame. Subclasses are immutable, hashable and comparable."""

    # Cached on first use: a guard set of a real model orders ~1000 guards by depth and fetch cost.
    __slots__ = ("_chain_stats",)
    #: relative cost of reading this source once its base is read (used to order checks)
    fetch_cost: int = 1

    @property
    def base(self) -> Source | None:
        """The source this one is read from (None for a root)."""
        return None

    def _stats(self) -> tuple[int, int]:
        """(depth, summed fetch cost) of the chain from the frame to this source."""
        try:
            stats = self._chain_stats
        except AttributeError:  # set to None by ``_set``; a first read that raised would cost ~1 µs
            stats = None
        if stats is None:
            base = self.base
            depth, cost = (0, 0) if base is None else base._stats()
            stats = (depth + 1, cost + self.fetch_cost)
            object.__setattr__(self, "_chain_stats", stats)
        return stats

    @property
    def depth(self) -> int:
        """Number of steps from the frame (a root is 1)."""
        return self._stats()[0]

    @property
    def chain_fetch_cost(self) -> int:
        """The summed ``fetch_cost`` of reading this source from the frame, root first."""
        return self._stats()[1]

    def chain(self) -> list[Source]:
        """This source's ancestors, root first, ending with itself."""
        out: list[Source] = []
        node: Source | None = self
        while node is not None:
            out.append(node)
            node = node.base
        out.reverse()
        return out

    def root(self) -> Source:
        return self.chain()[0]

    def fetch(
        self,
        frame: Any,
        /,
        *,
        f_globals: Mapping[str, Any] | None = None,
        f_builtins: Any = None,
        closure: Any = None,
    ) -> Any:
        """Read this source's value from a frame view or a mapping of locals.

        ``f_globals``, ``f_builtins`` and ``closure`` are used when ``frame`` does not carry them (a plain
        mapping of locals does not). Raises what the access raises (``KeyError``, ``AttributeError``...).
        """
        return self.get(FrameContext(frame, f_globals, f_builtins, closure))

    def get(self, ctx: FrameContext) -> Any:
        """Read this source's value from an already resolved :class:`FrameContext`."""
        raise NotImplementedError

    def read_from(self, base_value: Any) -> Any:
        """Read this (chained) source given the value of its base."""
        raise NotImplementedError


    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self}>"

    def __reduce__(self):
        return (type(self), self._args())

    def _args(self) -> tuple:
        raise NotImplementedError


def _set(obj: Source, **fields: Any) -> None:
    """A constructor's field writes (sources are immutable), with the cached hash and stats unset."""
    for name, value in fields.items():
        _setattr(obj, name, value)
    _setattr(obj, "_hash", None)
    _setattr(obj, "_chain_stats", None)


_setattr = object.__setattr__


def _set_chained(obj: Source, base: Source, field: str | None = None, value: Any = None) -> None:
    """``_set`` for the sources made most (an attribute, item or type of a base), without keywords."""
    _setattr(obj, "_base", base)
    if field is not None:
        _setattr(obj, field, value)
    _setattr(obj, "_hash", None)
    _setattr(obj, "_chain_stats", None)


class _Root(Source):
    __slots__ = ("name",)
    fetch_cost = 0
    prefix = "?"

    def __init__(self, name: str) -> None:
        _set(self, name=_check_name(type(self).__name__, name))

    def _key(self) -> tuple:
        return (self.name,)

    def _args(self) -> tuple:
        return (self.name,)

    def __str__(self) -> str:
        return f"{self.prefix}[{self.name!r}]"


class Local(_Root):
    """A local variable of the frame at entry (an argument): ``L['x']``."""

    __slots__ = ()
    prefix = "L"

    def get(self, ctx: FrameContext) -> Any:
        return ctx.locals[self.name]


class Global(_Root):
    """A global of the frame's module: ``G['W']``. A missing global fails the guard."""

    __slots__ = ()
    prefix = "G"
    fetch_cost = 1

    def get(self, ctx: FrameContext) -> Any:
        if ctx.globals is None:
            raise KeyError(f"no globals available to read {self.name!r}")
        return ctx.globals[self.name]


class Builtin(_Root):
    """A builtin as the frame sees it (``f_builtins``): ``B['len']``."""

    __slots__ = ()
    prefix = "B"
    fetch_cost = 1

    def get(self, ctx: FrameContext) -> Any:
        return ctx.builtins[self.name]


class Closure(_Root):
    """The contents of a free variable's cell, by name: ``C['scale']``.

    Read from the frame view's ``closure`` (a tuple of cells matched to ``f_code.co_freevars``) or from
    the ``closure=`` fallback given to :func:`loom_guards.compile` (a function, a tuple of cells with the
    frame's code, or a mapping ``{name: cell or value}``). An empty cell fails the guard.
    """

    __slots__ = ()
    prefix = "C"
    fetch_cost = 1

    def get(self, ctx: FrameContext) -> Any:
        return closure_value(ctx.closure, self.name)


class _Chained(Source):
    __slots__ = ("_base",)

    @property
    def base(self) -> Source:
        return self._base

    def get(self, ctx: FrameContext) -> Any:
        return self.read_from(self._base.get(ctx))


class Attr(_Chained):
    """An attribute: ``base.name`` (read with ``getattr``)."""

    __slots__ = ("name",)
    fetch_cost = 3

    def __init__(self, base: Source, name: str) -> None:
        if not isinstance(base, Source) or type(name) is not str or not name:
            _check_base("Attr", base)  # the checks, called only when one may fail: Attr is made often
            _check_name("Attr", name)
        _set_chained(self, base, "name", name)

    def _key(self) -> tuple:
        return (self._base, self.name)

    def _args(self) -> tuple:
        return (self._base, self.name)

    def read_from(self, base_value: Any) -> Any:
        return getattr(base_value, self.name)

    def __str__(self) -> str:
        return _attr_expr(str(self._base), self.name)


_MISSING = object()


def get_item(base: Any, key: Any) -> Any:
    """``base[key]``, except that a dict (subclass) keeping dict's ``__getitem__`` is read without
    running ``__missing__``: a guard never inserts into a ``defaultdict``."""
    if isinstance(base, dict) and type(base).__getitem__ is dict.__getitem__:
        value = dict.get(base, key, _MISSING)
        if value is _MISSING:
            raise KeyError(key)
        return value
    return base[key]


class Item(_Chained):
    """A subscript: ``base[key]`` - a tuple or list index, a dict key, any ``__getitem__``.

    A dict, or a dict subclass that keeps dict's ``__getitem__`` (``OrderedDict``, ``defaultdict``), is
    read without side effects: a missing key fails the guard instead of running ``__missing__``.

    ``key`` must be a literal (int, str, bytes, bool, float, None), an enum member, a ``torch.dtype`` or
    ``torch.device``, or a tuple or frozenset of those; its type is part of the source's identity
    (``Item(b, 1) != Item(b, 1.0)``).
    """

    __slots__ = ("key",)
    fetch_cost = 2

    def __init__(self, base: Source, key: Any) -> None:
        _check_key(key)
        _set_chained(self, _check_base("Item", base), "key", key)

    def _key(self) -> tuple:
        return (self._base, type(self.key), self.key)

    def _args(self) -> tuple:
        return (self._base, self.key)

    def read_from(self, base_value: Any) -> Any:
        return get_item(base_value, self.key)

    def __str__(self) -> str:
        return f"{self._base}[{self.key!r}]"


class TypeOf(_Chained):
    """The type of a value: ``type(base)``."""

    __slots__ = ()
    fetch_cost = 0

    def __init__(self, base: Source) -> None:
        _set_chained(self, _check_base("TypeOf", base))

    def _key(self) -> tuple:
        return (self._base,)

    def _args(self) -> tuple:
        return (self._base,)

    def read_from(self, base_value: Any) -> Any:
        return type(base_value)

    def __str__(self) -> str:
        return f"type({self._base})"


class DictAttr(_Chained):
    """An attribute read from the instance dict: ``base.__dict__['name']``.

    No descriptor, property or ``__getattr__`` runs: this is how a module's ``_modules``,
    ``_parameters`` and ``_buffers`` tables are read, and a cheap way to reach a plain instance
    attribute.
    """

    __slots__ = ("name",)
    fetch_cost = 2

    def __init__(self, base: Source, name: str) -> None:
        _set(self, _base=_check_base("DictAttr", base), name=_check_name("DictAttr", name))

    def _key(self) -> tuple:
        return (self._base, self.name)

    def _args(self) -> tuple:
        return (self._base, self.name)

    def read_from(self, base_value: Any) -> Any:
        return base_value.__dict__[self.name]

    def __str__(self) -> str:
        return f"{self._base}.__dict__[{self.name!r}]"


class _ModuleMember(_Chained):
    """A member of an ``nn.Module`` read straight from its tables (``__dict__[table][name]``).

    ``getattr`` on a module goes through ``nn.Module.__getattr__`` (Python, slow); these sources read the
    module's ``_modules`` / ``_parameters`` / ``_buffers`` dicts directly, which is what ``getattr``
    returns unless the name is shadowed by an instance attribute or a class attribute (the translator
    knows which table it found the name in). They print as the user-level expression.
    """

    __slots__ = ("name",)
    table = ""
    fetch_cost = 2

    def __init__(self, base: Source, name: str) -> None:
        _set(self, _base=_check_base(type(self).__name__, base), name=_check_name(type(self).__name__, name))

    def _key(self) -> tuple:
        return (self._base, self.name)

    def _args(self) -> tuple:
        return (self._base, self.name)

    def read_from(self, base_value: Any) -> Any:
        return base_value.__dict__[self.table][self.name]

    def table_source(self) -> DictAttr:
        """The module table this member is read from (compiled checks read it once for all members)."""
        return DictAttr(self._base, self.table)

    def __str__(self) -> str:
        base, name = str(self._base), self.name
        if name.isidentifier() and not keyword.iskeyword(name):
            return f"{base}.{name}"
        if name.isdigit() and (name == "0" or not name.startswith("0")):
            return f"{base}[{name}]"  # ModuleList / Sequential index
        return f"{base}.{self.table}[{name!r}]"


class Submodule(_ModuleMember):
    """A child module: ``base.layers`` / ``base[0]``, read from ``base._modules``."""

    __slots__ = ()
    table = "_modules"


class ModuleParam(_ModuleMember):
    """A parameter: ``base.weight``, read from ``base._parameters``."""

    __slots__ = ()
    table = "_parameters"


class ModuleBuffer(_ModuleMember):
    """A buffer: ``base.running_mean``, read from ``base._buffers``."""

    __slots__ = ()
    table = "_buffers"


class TensorSize(_Chained):
    """One size of a tensor: ``base.size()[dim]`` (an int), for relations over sizes."""

    __slots__ = ("dim",)
    fetch_cost = 2

    def __init__(self, base: Source, dim: int) -> None:
        if type(dim) is not int:
            raise TypeError(f"TensorSize dim must be an int, got {type(dim).__name__} {dim!r}")
        _set(self, _base=_check_base("TensorSize", base), dim=dim)

    def _key(self) -> tuple:
        return (self._base, self.dim)

    def _args(self) -> tuple:
        return (self._base, self.dim)

    def read_from(self, base_value: Any) -> Any:
        if not isinstance(base_value, torch.Tensor):
            raise TypeError(f"{self._base} is a {type(base_value).__name__}, not a tensor")
        size = torch._C.TensorBase.size(base_value, self.dim)
        return int(size)

    def __str__(self) -> str:
        return f"{self._base}.size()[{self.dim}]"


class Const(Source):
    """A value the guard itself holds (no frame access).

    It prints as ``name`` when given (how the program reaches the value: ``G['m']._forward_hooks``), a
    module or class by its qualified name, anything else as its ``repr``. The name is for people only:
    two Consts of one value are the same source whatever their names.
    """

    __slots__ = ("name", "value")
    fetch_cost = 0

    def __init__(self, value: Any, name: str | None = None) -> None:
        if name is not None and not isinstance(name, str):
            raise TypeError(f"Const(name=...) must be a str or None, got {type(name).__name__}")
        _set(self, value=value, name=name)

    def _key(self) -> tuple:
        try:
            hash(self.value)
        except TypeError:
            return (type(self.value), id(self.value))
        return (type(self.value), self.value)

    def __eq__(self, other: object) -> bool:
        if type(other) is not Const:
            return NotImplemented
        return self.value is other.value or self._key() == other._key()

    __hash__ = Source.__hash__

    def _args(self) -> tuple:
        return (self.value,)

    def get(self, ctx: FrameContext) -> Any:
        return self.value

    def __str__(self) -> str:
        if self.name is not None:
            return self.name
        value = self.value
        if isinstance(value, types.ModuleType):
            return value.__name__
        if isinstance(value, type):
            return value.__qualname__ if value.__module__ == "builtins" else f"{value.__module__}.{value.__qualname__}"
        text = repr(value)
        return text if len(text) <= 60 else text[:57] + "..."
