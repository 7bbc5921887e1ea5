"""Python builtins while tracing: one small handler per builtin, in a table keyed by the builtin.

A handler returns the result variable, or None to fall through to constant folding (which applies
to pure builtins whose arguments are all constants). Anything else is unsupported.
"""

from __future__ import annotations

import builtins
import cmath
import collections
import dataclasses
import functools
import inspect
import math
import operator
import sys
import types
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, TypeOf

from .. import operand_errors as _operand_errors
from .. import polyfills
from ..bytecode_helpers import iter_at
from ..errors import Unsupported, UserError, args_of, missing_attribute
from ..per_call_classes import made_per_call
from ..policy import opaque_module, opaque_reason
from . import attributes as _attributes
from . import class_lies as _class_lies
from . import container_methods as _container_methods
from . import flagged_tensor_classes as _flagged
from . import frame_locals as _frame_locals
from . import functions as _functions
from . import getitem_iteration as _getitem_iteration
from . import legacy_type_checks as _legacy
from . import operator_semantics as ops
from . import process_constants as _process_constants
from . import replaced_attributes as _replaced
from . import resumed_loops as _resumed_loops
from . import symbolic_scalars as _symbolic
from .base import RealValueVariable, Variable
from .constant import ConstantVariable, wrap_frozen
from .containers import (
    DictVariable,
    ListVariable,
    SequenceVariable,
    SetVariable,
    SliceVariable,
    TupleVariable,
)
from .exception_values import SymbolicException, is_attribute_error, make_exception
from .folded_identity import copies_of, wrap_folded
from .generic_attribute_methods import GenericDelattrVariable, GenericSetattrVariable
from .immutable_unbound import unbound_immutable_method
from .iterators import (
    EnumerateIterator,
    FilterIterator,
    IteratorVariable,
    MapIterator,
    SnapshotIterator,
    ZipIterator,
    iterate,
    not_modelled_because,
    user_iterator_or_none,
)
from .methods import BoundMethodVariable
from .registry import wrap, wrap_constant_like
from .tensor import TensorVariable, length_hinted

if TYPE_CHECKING:
    from .protocol import Translator as InstructionTranslator


Handler = Callable[["InstructionTranslator", list[Variable], dict[str, Variable]], Variable | None]
HANDLERS: dict[Any, Handler] = {}

#: ``operator`` functions that are not pure: those changing their first argument (folded, a copy would change) and ``call``.
_IMPURE_OPERATORS = frozenset(
    f"{prefix}{name}{suffix}" for prefix, suffix in (("", ""), ("__", "__"))
    for name in ("setitem", "delitem", "iadd", "iand", "iconcat", "ifloordiv", "ilshift", "imod", "imul",
                 "imatmul", "ior", "ipow", "irshift", "isub", "itruediv", "ixor", "call"))

#: builtin → what guards a call of it adds whatever answers it (``abc_registry``: isinstance against an ABC)
CALL_GUARDS: dict[Any, Callable[..., None]] = {}

#: Builtins that are pure functions of their arguments: folded when every argument is a constant.
PURE = {
    abs, all, any, ascii, bin, bool, callable, chr, complex, divmod, float, format, frozenset, hash, hex, int,
    isinstance, issubclass, len, max, min, oct, ord, pow, range, repr, round, slice, sorted, str, sum, tuple, bytes,
    list, dict, set, type, getattr, hasattr, zip, enumerate, reversed,
    sys.intern,  # returns an equal string; only ``is`` could tell the interned copy apart, and it is the one returned
    *(v for name, v in vars(operator).items()
      if callable(v) and not isinstance(v, type) and name not in _IMPURE_OPERATORS),
    *(v for v in vars(math).values() if callable(v)),
    *(v for v in vars(cmath).values() if callable(v)),  # complex math: functions of numbers alone, as math's
    # alternative constructors of immutable builtin types, read from the class (``int.from_bytes(b, "big")``)
    int.from_bytes, float.fromhex, bytes.fromhex,
    str.maketrans, bytes.maketrans,  # translation tables: a new dict (bytes) built from the arguments alone
}


def builtin(*fns: Any) -> Callable[[Handler], Handler]:
    """Register the decorated handler for each of ``fns``."""

    def register(handler: Handler) -> Handler:
        for fn in fns:
            HANDLERS[fn] = handler
        return handler

    return register


class BuiltinVariable(RealValueVariable):
    """A builtin function (``len``, ``isinstance``, ``operator.add``, ``math.sqrt``, ...)."""

    def call(self, tx: InstructionTranslator, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        return call_builtin(tx, self.value, args, kwargs)

    def var_getattr(self, tx: InstructionTranslator, name: str) -> Variable:
        # The names of a builtin function or class are fixed (the object itself is identity-guarded).
        if name in _FIXED_NAMES and (isinstance(self.value, types.BuiltinFunctionType) or _is_builtin_type(self.value)):
            return ConstantVariable(getattr(self.value, name))
        if name == "__flags__" and _is_builtin_type(self.value):  # a C type's flags (list's, dict's): fixed
            return ConstantVariable(self.value.__flags__)
        if name in _FIXED_NAMES and isinstance(self.value, type):  # ExceptionGroup, a heap type: names can be set
            return wrap(tx, getattr(self.value, name), Attr(self.source or Const(self.value), name))
        if name in ("__bases__", "__base__", "__mro__") and _is_builtin_type(self.value):  # a C type's: fixed
            return wrap_constant_like(getattr(self.value, name))
        if name == "__dict__" and _is_builtin_type(self.value):  # a C type's namespace: fixed, its keys guarded
            return wrap(tx, self.value.__dict__, Attr(self.source or Const(self.value), name))
        if self.value is object and name in ("__setattr__", "__delattr__"):
            return GenericSetattrVariable() if name == "__setattr__" else GenericDelattrVariable()
        replacement = polyfills.attribute_replacement(self.value, name)
        if replacement is not None:  # dict.fromkeys: traced through the replacement, otherwise the original
            return _replaced.ReplacedAttributeVariable(replacement, getattr(self.value, name))
        for unbound_of in (_container_methods.unbound_method, unbound_immutable_method):  # dict.pop(d, k), str.split(s)
            unbound = unbound_of(self.value, name)
            if unbound is not None:
                return unbound
        if _is_builtin_type(self.value) and _is_pure(attribute := getattr(self.value, name, None)):
            # int.from_bytes: a C type's attributes are fixed, and a pure one is folded when called
            return BuiltinVariable(attribute, Attr(self.source, name) if self.source is not None else None)
        if _is_builtin_type(self.value) and ((name == "__new__" and self.value.__new__ in HANDLERS)  # list.__new__
                                             or type(getattr(self.value, name, None)) in _SLOT_TYPES):
            return BuiltinVariable(getattr(self.value, name), Attr(self.source, name) if self.source is not None else None)
        if _is_builtin_type(self.value) and not hasattr(self.value, name):
            # a C type's attributes cannot be added: hasattr(int, "__dataclass_fields__") is False for good
            raise missing_attribute(f"type object {self.value.__name__!r}", name)
        return super().var_getattr(tx, name)

    def describe(self) -> str:
        return f"builtin {getattr(self.value, '__name__', self.value)}"


_FIXED_NAMES = frozenset({"__name__", "__qualname__", "__module__"})
_SLOT_TYPES = (types.WrapperDescriptorType, types.MethodDescriptorType)  # object.__lt__ & co: fixed, by identity


def _is_pure(value: Any) -> bool:
    try:
        return value in PURE
    except TypeError:  # unhashable
        return False


def _is_builtin_type(value: Any) -> bool:
    """A class defined in C (its names cannot be reassigned)."""
    return isinstance(value, type) and not value.__flags__ & (1 << 9)  # Py_TPFLAGS_HEAPTYPE


def call_builtin(tx: InstructionTranslator, fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """Call builtin ``fn``: its handler, else constant folding, else unsupported."""
    if isinstance(fn, type) and issubclass(fn, BaseException):
        return make_exception(fn, args, kwargs, tx)
    _check_arguments(fn, args, kwargs)
    guard = CALL_GUARDS.get(fn)
    if guard is not None:
        guard(tx, args, kwargs)
    handler = HANDLERS.get(fn)
    if handler is not None:
        result = handler(tx, args, kwargs)
        if result is not None:
            return result
    if fn in PURE and all(a.is_python_constant() or _is_symbolic(a) or a.specialises for a in [*args, *kwargs.values()]):
        # Symbolic sizes and NumPy scalar arguments given to a builtin that needs a real number (range,
        # round, math.sqrt...) are specialised: the trace depends on their value, which becomes a guard.
        return _fold_call(fn, args, kwargs)
    replacement = polyfills.fallback_for(fn)
    if replacement is not None:
        return _functions.UserFunctionVariable(replacement).call(tx, args, kwargs)
    name = getattr(fn, "__name__", repr(fn))
    family = opaque_module(fn)
    if family is not None:  # warnings.warn (_warnings.warn)
        raise Unsupported(f"call to {family.lstrip('_')}.{name}()", opaque_reason(family),
                          hint="it runs as ordinary Python between graphs")
    raise Unsupported(f"call to {name}()", "the translator does not model this builtin with these arguments",
                      hint="it runs as ordinary Python instead")


class _Arity:
    """How many positional arguments and which keywords a builtin accepts, from its signature: the
    common well-formed call is told apart in a few compares, without ``Signature.bind``."""

    __slots__ = ("keywords", "max_positional", "min_positional", "signature")

    def __init__(self, signature: inspect.Signature) -> None:
        params = list(signature.parameters.values())
        positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
        self.signature = signature
        self.min_positional = sum(1 for p in positional if p.default is p.empty)
        self.max_positional = None if any(p.kind is p.VAR_POSITIONAL for p in params) else len(positional)
        self.keywords = None if any(p.kind is p.VAR_KEYWORD for p in params) else frozenset(
            p.name for p in params if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY))

    def surely_fits(self, npositional: int, kwargs: dict[str, Any]) -> bool:
        if kwargs:
            return False  # rare for builtins: let bind decide
        return self.min_positional <= npositional and (self.max_positional is None or npositional <= self.max_positional)


@functools.cache
def _arity(fn: Any) -> _Arity | None:
    """The builtin's parameters, where CPython publishes them (``isinstance``, ``len``; not ``zip``)."""
    try:
        return _Arity(inspect.signature(fn))
    except (TypeError, ValueError):
        return None


def _check_arguments(fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> None:
    """Raise the TypeError CPython raises for a builtin called with the wrong number or names of
    arguments (its handlers assume a well-formed call). Only arity and names are checked here: binding
    runs no code of the arguments."""
    arity = _arity(fn) if not isinstance(fn, type) else None
    if arity is None or arity.surely_fits(len(args), kwargs):
        return
    try:
        arity.signature.bind(*args, **kwargs)
        return
    except TypeError as exc:
        message = str(exc)
    if fn in PURE:
        # The builtin's own words: it parses its arguments before it does anything, and a pure builtin
        # has no effect to fear if the signature were wrong and the call went through.
        try:
            fn(*[object()] * len(args), **dict.fromkeys(kwargs, object()))
        except TypeError as real:
            message = str(real)
        except Exception:
            pass
    raise UserError(f"{getattr(fn, '__name__', repr(fn))}()", message, exc_type=TypeError)


def _is_symbolic(value: Variable) -> bool:
    return isinstance(value, _symbolic.SymbolicVariable)


def _fold_call(fn: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    ops.refuse_folding_python_specials(fn, [*args, *kwargs.values()])
    values = [a.as_python_constant() for a in args]
    try:
        result = fn(*values, **{k: v.as_python_constant() for k, v in kwargs.items()})
    except Exception as exc:
        raise UserError(f"{getattr(fn, '__name__', fn)}() raised {type(exc).__name__}", str(exc),
                        exc_type=type(exc), exc_args=args_of(exc)) from exc
    return wrap_folded(result, copies_of(args, values))  # max(rows) is one of the very rows


def _items(tx: InstructionTranslator, value: Variable, hint: bool = False) -> list[Variable]:
    items = iterate(tx, value).unpack(tx)
    return length_hinted(tx, value, items) if hint else items  # list(), tuple(), sorted(): CPython's length hint


# -- introspection ---------------------------------------------------------------------------------
@builtin(len)
def builtin_len(tx, args, kwargs):
    (value,) = args
    if isinstance(value, TensorVariable):
        if tx.output.function_modes or value.hands_calls:
            return value.call_method(tx, "__len__", [], {})  # eager hands Tensor.__len__ to the mode or subclass
        if value.example.dim() == 0:
            raise UserError("len() of a 0-d tensor", "len() of a 0-d tensor", exc_type=TypeError)
        return tx.output.size_of(value, 0)
    if isinstance(value, (SequenceVariable, DictVariable)) and not _own_len(value):
        return ConstantVariable(len(value.items))
    if isinstance(value, SetVariable) and not _own_len(value):
        return ConstantVariable(len(value.values))
    if ops.constant_runs_python(value, "__len__"):  # an enum's own __len__: traced, never called now
        return value.call_method(tx, "__len__", [], {})
    if value.is_python_constant() and not isinstance(value, (SequenceVariable, DictVariable, SetVariable)):
        return None  # (a list subclass of constants that writes __len__: its own, below)
    if isinstance(value, IteratorVariable):
        _operand_errors.refuse_unsized(value.python_type())
    if type(getattr(value, "value", None)) in (dict, list, set) and getattr(value, "wraps_real_object", 0) and value.source:
        tx.output.guards.add("length", value.source, value.value)  # a dict of keys not modelled: its size, guarded
        return ConstantVariable(len(value.value))
    length = value.call_method(tx, "__len__", [], {})
    return ConstantVariable(_operand_errors.length_of(length.as_python_constant())) if length.is_python_constant() else length


@builtin(slice)
def builtin_slice(tx, args, kwargs):
    """``slice(stop)`` or ``slice(start, stop[, step])`` with a part known only at run time (a tensor, a
    symbolic int): the slice a subscript then uses, as ``BUILD_SLICE`` makes it. Constants fold."""
    if kwargs or not 1 <= len(args) <= 3 or all(a.is_python_constant() for a in args):
        return None
    none = ConstantVariable(None)
    return SliceVariable(none, args[0], none) if len(args) == 1 else SliceVariable(*[*args, none][:3])


def _own_len(value: Variable) -> bool:
    """A subclass instance whose class defines ``__len__`` in Python (inlined, not the item count)."""
    return type(value.python_type().__len__) is types.FunctionType


@builtin(isinstance)
def builtin_isinstance(tx, args, kwargs):
    value, classes = args
    cls = classes.as_python_constant()
    real = getattr(value, "value", None) if getattr(value, "wraps_real_object", False) else None
    if real is not None and type(real) is not type:
        try:
            return ConstantVariable(isinstance(real, cls))
        except TypeError as exc:
            raise UserError("isinstance()", str(exc), exc_type=TypeError) from exc
    if _flagged.flagged_instance(tx, value, cls, builtin_getattr) or _legacy.legacy_instance(value, cls):
        return ConstantVariable(True)  # nn.Buffer(t): a plain tensor so flagged; torch.FloatTensor: by dtype
    try:  # a real type not matching: a __class__ the class defines answers (class_lies)
        return ConstantVariable(issubclass(value.python_type(), cls)
                                or bool(_class_lies.isinstance_through_class_attribute(tx, value, cls)))
    except TypeError as exc:
        raise UserError("isinstance()", str(exc), exc_type=TypeError) from exc


#: ``type(name, bases, namespace)``: the maker of a new class (filled by ``opcodes.class_definitions``).
MAKE_TYPE: list[Handler] = []


@builtin(type)
def builtin_type(tx, args, kwargs):
    if len(args) == 3 and not kwargs and MAKE_TYPE:
        return MAKE_TYPE[0](tx, args, kwargs)
    if len(args) != 1 or kwargs:
        raise Unsupported("type() with three arguments", "creating classes is not modelled")
    if args[0].source is not None and made_per_call(cls := args[0].python_type()):  # matched through it
        return wrap(tx, cls, TypeOf(args[0].source))
    return wrap_constant_like(args[0].python_type())


@builtin(callable)
def builtin_callable(tx, args, kwargs):
    (value,) = args
    if getattr(value, "wraps_real_object", False):
        # what callable() asks, through class_attribute: a __call__ added to a user class later recompiles
        return ConstantVariable(_attributes.class_attribute(type(value.value), "__call__") is not _attributes._MISSING)
    if value.is_python_constant():
        return None

    return ConstantVariable(_attributes.class_attribute(value.python_type(), "__call__") is not _attributes._MISSING)


@builtin(getattr)
def builtin_getattr(tx, args, kwargs):
    obj, name = args[0], args[1].as_python_constant()
    if not isinstance(name, str):
        raise UserError("getattr()", "attribute name must be string", exc_type=TypeError)
    try:
        return obj.var_getattr(tx, name)
    except (UserError, SymbolicException) as exc:
        if len(args) > 2 and is_attribute_error(exc):
            return args[2]
        raise


@builtin(setattr)
def builtin_setattr(tx, args, kwargs):
    obj, name, value = args
    setter = getattr(obj, "store_attr", None)
    if setter is None:
        raise Unsupported(f"setattr on {obj.describe()}", "not modelled")
    setter(tx, name.as_python_constant(), value)
    return ConstantVariable(None)


@builtin(delattr)
def builtin_delattr(tx, args, kwargs):
    """``delattr(obj, name)``: what ``del obj.name`` does."""
    if kwargs or len(args) != 2 or getattr(args[0], "delete_attr", None) is None:
        return None
    args[0].delete_attr(tx, args[1].as_python_constant())
    return ConstantVariable(None)


# -- numbers ---------------------------------------------------------------------------------------
@builtin(abs, operator.abs)
def builtin_abs(tx, args, kwargs):
    graph_value = isinstance(args[0], TensorVariable) or getattr(args[0], "numpy_value", False)
    graph_value = graph_value or ops.has_python_special(args[0], "__abs__") or getattr(args[0], "answers_builtin_specials", False)  # a class's own __abs__ (inlined), or int's/float's on a subclass instance's value
    return ops.unary(tx, operator.abs, args[0]) if graph_value else None


@builtin(bool)
def builtin_bool(tx, args, kwargs):
    if not args:
        return ConstantVariable(False)
    return ConstantVariable(args[0].truth(tx))


@builtin(sum)
def builtin_sum(tx, args, kwargs):
    total = args[1] if len(args) > 1 else kwargs.get("start", ConstantVariable(0))
    if total.is_python_constant() and isinstance(total.as_python_constant(), (str, bytes, bytearray)):
        kind = type(total.as_python_constant()).__name__
        raise UserError("sum()", f"sum() can't sum {kind}s", exc_type=TypeError)
    for item in _items(tx, args[0]):
        total = ops.binary(tx, operator.add, total, item)
    return total


def _short_circuit(stop_at: bool) -> Handler:
    """``all`` (stops at the first false item) or ``any`` (the first true one): later items are not
    taken from the iterator, as in Python."""

    def handler(tx, args, kwargs):
        iterator = iterate(tx, args[0])
        while (item := iterator.next_item(tx)) is not None:
            if bool(item.truth(tx)) == stop_at:
                return ConstantVariable(stop_at)
        return ConstantVariable(not stop_at)

    return handler


HANDLERS[all] = _short_circuit(False)
HANDLERS[any] = _short_circuit(True)


# -- containers and iteration ----------------------------------------------------------------------
@builtin(tuple)
def builtin_tuple(tx, args, kwargs):
    return TupleVariable(_items(tx, args[0], hint=True) if args else [])


@builtin(list)
def builtin_list(tx, args, kwargs):
    return ListVariable(_items(tx, args[0], hint=True) if args else [])


def _set_handler(frozen: bool) -> Handler:
    def handler(tx, args, kwargs):
        items = _items(tx, args[0]) if args else []
        return SetVariable(items, frozen=frozen, tx=tx)  # tx: a tensor from outside may be a member

    return handler


HANDLERS[set] = _set_handler(False)
HANDLERS[frozenset] = _set_handler(True)


@builtin(iter)
def builtin_iter(tx, args, kwargs):
    if len(args) != 1:
        return None  # iter(callable, sentinel): its polyfill
    return iterate(tx, args[0])


@builtin(next)
def builtin_next(tx, args, kwargs):
    iterator = args[0]
    if not isinstance(iterator, IteratorVariable):
        iterator = user_iterator_or_none(iterator) or iterator
    if not isinstance(iterator, IteratorVariable):
        if not hasattr(iterator.python_type(), "__next__"):  # a list, a tensor: CPython's TypeError
            message = f"{iterator.python_type().__name__!r} object is not an iterator"
            raise UserError("next()", message, exc_type=TypeError, exc_args=(message,))
        raise Unsupported(f"next() on {iterator.describe()}", not_modelled_because(iterator))
    if len(args) > 1:
        item = iterator.next_item(tx)
        return args[1] if item is None else item
    return iterator.next_or_stop(tx)


@builtin(enumerate)
def builtin_enumerate(tx, args, kwargs):
    start = (args[1] if len(args) > 1 else kwargs.get("start", ConstantVariable(0))).as_python_constant()
    return EnumerateIterator(iterate(tx, args[0]), start)


@builtin(zip)
def builtin_zip(tx, args, kwargs):
    strict = kwargs["strict"].as_python_constant() if "strict" in kwargs else False
    return ZipIterator([iterate(tx, a) for a in args], strict=strict)


@builtin(map)
def builtin_map(tx, args, kwargs):
    return MapIterator(args[0], [iterate(tx, a) for a in args[1:]])


@builtin(filter)
def builtin_filter(tx, args, kwargs):
    fn = None if args[0].is_python_constant() and args[0].as_python_constant() is None else args[0]
    return FilterIterator(fn, iterate(tx, args[1]))


@builtin(reversed)
def builtin_reversed(tx, args, kwargs):
    (value,) = args
    cls = value.python_type()
    if not hasattr(cls, "__reversed__") and not (hasattr(cls, "__len__") and hasattr(cls, "__getitem__")):
        message = f"{cls.__name__!r} object is not reversible"  # iterators, generators and sets: CPython's words
        raise UserError("reversed()", message, exc_type=TypeError, exc_args=(message,))
    backwards = _getitem_iteration.reversed_protocol(tx, value, cls)
    return backwards if backwards is not None else SnapshotIterator(list(reversed(_items(tx, value))))


@builtin(sorted)
def builtin_sorted(tx, args, kwargs):
    items = _items(tx, args[0], hint=True)
    result = ListVariable(items)

    _container_methods.list_sort(tx, result, [], kwargs)
    return result


@builtin(inspect.signature)
def builtin_signature(tx, args, kwargs):
    """``inspect.signature(fn)``: computed on the real function (functions are guarded by identity)."""
    target = args[0]
    options = {k: v.as_python_constant() for k, v in kwargs.items()}
    if isinstance(target, BoundMethodVariable) and isinstance(target.function, _functions.UserFunctionVariable) and getattr(
        target.receiver, "wraps_real_object", False
    ):
        real = types.MethodType(target.function.value, target.receiver.value)
    elif getattr(target, "wraps_real_object", False):
        real = target.value
    elif (real := getattr(target, "signature_stand_in", lambda **_: None)(**options)) is None:  # made while tracing
        raise Unsupported(f"inspect.signature of {target.describe()}", "not a function the translator can inspect")
    return wrap_frozen(inspect.signature(real, **options))


@builtin(iter_at)
def builtin_iter_at(tx, args, kwargs):
    """The iterator of a loop resumed after a graph break: advanced past the items already taken.
    Over the resume function's own arguments it reads them only when the loop takes an item."""
    resumed = _resumed_loops.make_resumed_iterator(tx, args)
    if resumed is not None:
        return resumed
    return _resumed_loops.advanced(tx, args[0], args[1].as_python_constant())


#: Library functions in Python the translator answers itself with a handler (namedtuple's, dataclass's:
#: opcodes.class_definitions); modules above add theirs (``re.match``: :mod:`.regex`).
FOLDED_LIBRARY_FUNCTIONS = {inspect.signature, iter_at, polyfills.copy.deepcopy_tensor, collections.namedtuple,
                            dataclasses.dataclass, *_process_constants.FUNCTIONS}
HANDLERS.update({fn: _process_constants.folder(fn) for fn in _process_constants.FUNCTIONS})  # torch.cuda.is_available


# -- things that leave the graph's world (``id()``: :mod:`.object_id_calls`) ---------------------------
def _refuser(fn: Any) -> Handler:
    """The handler of a builtin that inspects or changes the running program: a break naming it."""
    def refused(tx, args, kwargs):
        raise Unsupported(f"call to {fn.__name__}()", "a builtin that inspects or changes the running program",
                          hint="it runs as ordinary Python between graphs")
    return refused


for _fn in (input, open, exec, eval, compile, breakpoint):  # globals(): globals_dict.py
    HANDLERS[_fn] = _refuser(_fn)


@builtin(vars)
def builtin_vars(tx, args, kwargs):
    """``vars(obj)`` is ``obj.__dict__`` (the attribute read decides what it can model); ``vars()`` is
    ``locals()``, the traced frame's own (:mod:`.frame_locals`)."""
    if len(args) == 1 and not kwargs:
        return args[0].var_getattr(tx, "__dict__")
    if not args and not kwargs:
        return _frame_locals.frame_locals(tx, "vars")
    return None


@builtin(locals)
def builtin_locals(tx, args, kwargs):
    return _frame_locals.frame_locals(tx, "locals") if not args and not kwargs else None


@builtin(dir)
def builtin_dir(tx, args, kwargs):
    """``dir()`` lists the traced frame's own locals; ``dir(obj)`` is traced (``polyfills.introspection``, its
    class names folded: :mod:`.dir_names`), but a tensor's while tracing would be its fake example's."""
    if len(args) == 1 and isinstance(args[0], TensorVariable):
        raise Unsupported("dir() of a tensor", "its attributes while tracing are those of a fake tensor")
    return _frame_locals.frame_names(tx) if not args and not kwargs else None


BUILTIN_FUNCTIONS = frozenset(v for v in vars(builtins).values() if callable(v))
