"""Values the translator knows exactly: literals, and immutable objects that can be folded."""

from __future__ import annotations

import enum
import inspect
import types
from typing import TYPE_CHECKING, Any

import torch

from ..errors import Unsupported, UserError, missing_attribute
from ..polyfills import text_format
from .base import RealValueVariable, Variable
from .methods import MethodVariable
from .registry import wrap, wrap_constant_like
from .specialising import NOT_CONCRETE, concrete, has_symbolic_int

if TYPE_CHECKING:
    from ..codegen import PyCodegen
    from .protocol import Translator as InstructionTranslator


#: Immutable types whose values are folded while tracing and embedded in bytecode with LOAD_CONST.
CONSTANT_TYPES: tuple[type, ...] = (
    type(None),
    bool,
    int,
    float,
    complex,
    str,
    bytes,
    type(Ellipsis),
    type(NotImplemented),
    range,
    slice,
    frozenset,
    torch.dtype,
    torch.device,
    torch.layout,
    torch.memory_format,
    types.CodeType,
)

#: Methods of constant receivers that are safe to fold (pure, no I/O) — by receiver type.
_PURE_RECEIVERS: tuple[type, ...] = (
    str, bytes, int, float, complex, bool, range, slice, frozenset, tuple, torch.dtype, torch.device, enum.Enum,
)


def is_constant_value(value: Any) -> bool:
    """Whether ``value`` is a literal-like immutable value (tuples of such values included)."""
    if isinstance(value, tuple):
        return type(value) is tuple and all(is_constant_value(v) for v in value)
    return type(value) in CONSTANT_TYPES or isinstance(value, (torch.dtype, torch.device, enum.Enum))


#: Folded results that the wrap rules turn into new container variables (never shared between calls).
_FRESH_CONTAINERS = (list, dict, tuple, set, frozenset)

#: ``fn(tx, constant, name, args, kwargs)`` answering a method of a constant called with arguments that are not
#: constants (``(1, 2).count(obj)``), or None to pass. Filled by :mod:`.constant_tuple_methods`.
NON_CONSTANT_ARGUMENTS: list[Any] = []
#: The same kind of answers, asked first whatever the arguments: a method that must never be folded by calling
#: it now (one written in Python on an enum class may read state or have effects). Filled by
#: :mod:`.constant_python_methods`.
NEVER_FOLDED: list[Any] = []
#: ``fn(tx, constant, name)`` answering an attribute read of a constant that must not be made on the real
#: object now (a property an enum class writes in Python), or None to pass. Filled by
#: :mod:`.constant_python_methods`.
ATTRIBUTES_NEVER_FOLDED: list[Any] = []


#: Builtin types whose instances take no attribute store (no ``__dict__``, no writable slot).
_IMMUTABLE_INSTANCES = frozenset({int, float, complex, bool, str, bytes, tuple, frozenset, range, type(None)})


class ConstantVariable(Variable):
    """A value known exactly at trace time (``3``, ``"relu"``, ``None``, ``torch.float32``, ``range(4)``)."""

    def __init__(self, value: Any, source: Any = None) -> None:
        self.value = value
        self.source = source

    def python_type(self) -> type:
        return type(self.value)

    def as_python_constant(self) -> Any:
        return self.value

    def is_python_constant(self) -> bool:
        return True

    def truth(self, tx: InstructionTranslator) -> bool:
        return bool(self.value)

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        try:
            items = list(self.value)
        except TypeError as exc:
            raise UserError("iteration", str(exc), exc_type=type(exc)) from exc
        return [ConstantVariable(v) for v in items]

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        """Calling a constant: CPython's TypeError (``'int' object is not callable``, its message taken
        from calling the real value, which runs nothing), for a handler that reads ``str(e)``."""
        if callable(self.value):
            return super().call(tx, args, kwargs)
        try:
            self.value()
        except TypeError as exc:
            raise UserError(f"call to {self.value!r}", str(exc), exc_type=TypeError, exc_args=exc.args) from exc
        return super().call(tx, args, kwargs)

    def store_attr(self, tx: InstructionTranslator, name: str, value: Variable) -> None:
        """``(1).x = v``, ``"a".__class__ = C``: an instance of an immutable builtin type takes no attribute, so
        CPython raises (the error taken from the real store, which changes nothing); other constants break."""
        if type(self.value) not in _IMMUTABLE_INSTANCES or not value.is_python_constant():
            raise Unsupported(f"assigning attribute {name!r} of {self.describe()}", "not modelled")
        try:
            setattr(self.value, name, value.as_python_constant())
        except (AttributeError, TypeError) as exc:
            raise UserError(f"assigning attribute {name!r}", str(exc), exc_type=type(exc), exc_args=exc.args) from exc
        raise Unsupported(f"assigning attribute {name!r} of {self.describe()}", "not modelled")

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        for answer in ATTRIBUTES_NEVER_FOLDED:
            result = answer(tx, self, name)
            if result is not None:
                return result
        try:
            value = getattr(self.value, name)
        except AttributeError as exc:
            # Python's own error: its args, its name and its obj (this constant), so a handler may read them
            raise missing_attribute(repr(self.value), name, raised=exc, obj=self) from None
        if is_constant_value(value):
            return ConstantVariable(value)
        if isinstance(value, type):
            return wrap_constant_like(value)
        if isinstance(self.value, _PURE_RECEIVERS) and callable(value):
            return MethodVariable(self, name)
        raise Unsupported(f"attribute {name!r} of {type(self.value).__name__}", "not a foldable constant")

    def call_method(
        self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]
    ) -> Variable:
        if not isinstance(self.value, _PURE_RECEIVERS):
            raise Unsupported(f"method {name!r} of {type(self.value).__name__}", "not a foldable constant")
        for answer in NEVER_FOLDED:
            result = answer(tx, self, name, args, kwargs)
            if result is not None:
                return result
        if name == "__iter__" and not args and not kwargs:
            return tx.iterate(self)  # the translator's own iterator: it has state
        if isinstance(self.value, str) and name == "join" and len(args) == 1 and not args[0].is_python_constant():
            items = tx.iterate(args[0]).unpack(tx)  # str.join takes any iterable
            if all(item.is_python_constant() for item in items):
                args = [ConstantVariable(tuple(item.as_python_constant() for item in items))]
        if isinstance(self.value, str) and name == "format":  # sizes formatted in: specialised, as f-strings do
            args, kwargs = [_concrete_or_same(tx, a) for a in args], {k: _concrete_or_same(tx, v) for k, v in kwargs.items()}
        if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
            if isinstance(self.value, str) and name in ("format", "format_map"):
                return traced_format(tx, self.value, name, args, kwargs)
            for answer in NON_CONSTANT_ARGUMENTS:
                result = answer(tx, self, name, args, kwargs)
                if result is not None:
                    return result
            raise Unsupported(f"{type(self.value).__name__}.{name} with non-constant arguments", "not modelled")

        try:
            result = getattr(self.value, name)(
                *(a.as_python_constant() for a in args), **{k: v.as_python_constant() for k, v in kwargs.items()}
            )
        except Exception as exc:
            raise UserError(f"{type(self.value).__name__}.{name} raised {type(exc).__name__}", str(exc), exc_type=type(exc),
                            exc_args=exc.args, exc_attrs=_set_besides_args(exc)) from exc
        if not is_constant_value(result) and not isinstance(result, _FRESH_CONTAINERS):
            # A stateful object (an iterator, a reversed view) made now would be embedded in the
            # rewritten code and shared by every later call.
            raise Unsupported(f"{type(self.value).__name__}.{name}()", f"it returns a {type(result).__name__} object",
                              hint="it runs as ordinary Python instead")
        return wrap_constant_like(result)

    def reconstruct(self, codegen: PyCodegen) -> None:
        codegen.load_const(self.value)

    def describe(self) -> str:
        return repr(self.value)

    def __repr__(self) -> str:
        return f"ConstantVariable({self.value!r})"


#: What CPython sets on a UnicodeError besides its args (``e.start`` is not ``e.args[2]`` to the trace).
_UNICODE_ERROR_FIELDS = ("encoding", "object", "start", "end", "reason")


def _set_besides_args(exc: Exception) -> dict[str, Variable]:
    """The attributes a builtin exception raised by a folded method carries besides ``args``, as constants."""
    if not isinstance(exc, UnicodeError) or type(exc) is UnicodeError:
        return {}
    return {name: ConstantVariable(getattr(exc, name)) for name in _UNICODE_ERROR_FIELDS}


def traced_format(tx: InstructionTranslator, template: str, name: str, args: list[Variable],
                   kwargs: dict[str, Variable]) -> Variable:
    """``template.format(...)``/``format_map(...)`` with fields known only at run time: the template parsed
    now, its fields' lookups, conversions and ``format()`` calls traced through the stand-in."""
    pieces = text_format.parse_template(template, positional=name == "format")
    if pieces is None or (name == "format_map" and (len(args) != 1 or kwargs)):
        raise Unsupported(f"str.{name} with a value known only at run time",
                          "the template is malformed or mixes automatic and manual field numbering")
    stand_in = text_format.str_format if name == "format" else text_format.str_format_map
    return wrap(tx, stand_in, None).call(tx, [ConstantVariable(pieces), *args], kwargs)


class ObjectConstantVariable(RealValueVariable):
    """An object used only by identity (a class, a module, a C function, an enum member).

    It can be passed to graph ops or compared by identity; reading it from the frame installs an
    identity guard, and the rewritten bytecode embeds it as a constant.
    """

    def describe(self) -> str:
        name = getattr(self.value, "__qualname__", None) or getattr(self.value, "__name__", None)
        return name or repr(self.value)

    def __repr__(self) -> str:
        return f"ObjectConstantVariable({self.describe()})"


def module_qualname(value: types.ModuleType) -> str:
    """A module's dotted name, for messages."""
    return getattr(value, "__name__", repr(value))


class FrozenObjectVariable(ObjectConstantVariable):
    """An immutable library object computed while tracing (an ``inspect.Signature``, its parameters).

    Attribute reads and pure method calls are folded on the real object.
    """

    store_attr = ConstantVariable.store_attr  # an immutable builtin instance refuses it as CPython does

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        try:
            value = getattr(self.value, name)
        except AttributeError as exc:
            raise missing_attribute(repr(self.value), name, raised=exc, obj=self) from None
        if isinstance(value, type):
            # a class it names (``Signature._bound_arguments_cls``): one the trace can instantiate
            return wrap(tx, value, None)
        return wrap_frozen(value)

    def call_method(self, tx: InstructionTranslator, name: str, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if not all(a.is_python_constant() for a in [*args, *kwargs.values()]) or _makes_a_mutable_object(self.value, name):
            function = getattr(type(self.value), name, None)
            if isinstance(function, types.FunctionType):
                # A method written in Python (``Signature.bind(x, ...)`` with a tensor among the
                # arguments) is inlined over the folded object: its reads of it fold, and what it
                # builds from the arguments is traced like any other code.
                return wrap(tx, function, None).call(tx, [self, *args], kwargs)
            raise Unsupported(f"{type(self.value).__name__}.{name} with values known only at run time", "not modelled")
        method = getattr(self.value, name)
        return wrap_frozen(method(*(a.as_python_constant() for a in args),
                                  **{k: v.as_python_constant() for k, v in kwargs.items()}))

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        # Only a method bound to a frozen object (``sig.parameters.keys``): folded as ``call_method`` is.
        receiver = getattr(self.value, "__self__", None)
        name = getattr(self.value, "__name__", None)
        if receiver is None or isinstance(receiver, types.ModuleType) or getattr(receiver, name or "", None) != self.value:
            return super().call(tx, args, kwargs)
        return FrozenObjectVariable(receiver).call_method(tx, name, args, kwargs)

    def contains(self, tx: InstructionTranslator, item: Variable) -> Variable:
        """``item in frozen`` (a signature's ``parameters``, their ``keys()``), folded on the real object."""
        if not item.is_python_constant():
            raise Unsupported(f"'in' on {type(self.value).__name__} with a value known only at run time", "not modelled")
        try:
            return ConstantVariable(item.as_python_constant() in self.value)
        except Exception as exc:
            raise UserError(f"'in' on {type(self.value).__name__}", str(exc), exc_type=type(exc)) from exc

    def unpack(self, tx: InstructionTranslator) -> list[Variable]:
        return [wrap_frozen(v) for v in self.value]


def _makes_a_mutable_object(value: Any, name: str) -> bool:
    """Whether ``value.name(...)`` returns an object the program may change (``Signature.bind``'s
    ``BoundArguments``, whose ``arguments`` it edits and ``apply_defaults`` fills): folded, it would be
    a frozen copy that drops those changes, so the Python method is inlined and the object traced."""
    return isinstance(value, inspect.Signature) and name in ("bind", "bind_partial", "_bind")


def wrap_frozen(value: Any) -> Variable:
    """A folded result: a constant if it is one, else an immutable library object."""
    if is_constant_value(value) or isinstance(value, (list, dict, tuple)):
        return wrap_constant_like(value)

    return FrozenObjectVariable(value)


def _concrete_or_same(tx: InstructionTranslator, value: Variable) -> Variable:
    """``value`` as a constant when it is (or holds) a symbolic int that may be specialised, else itself."""
    if not has_symbolic_int(value):
        return value
    known = concrete(tx, value)
    return value if known is NOT_CONCRETE else wrap_constant_like(known)
