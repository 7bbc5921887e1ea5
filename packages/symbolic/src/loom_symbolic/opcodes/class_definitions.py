"""``class C(Base): ...`` inside a traced function: ``LOAD_BUILD_CLASS`` and the call of ``__build_class__``.

The class is made while tracing, once, by running CPython's ``__build_class__`` on the class body and
constant bases: the compiled code then holds that one class where eager makes a new one per call (same
behaviour, another identity: ``f(x)[1] is f(x)[1]`` for a returned class is True compiled, False in eager).
The body's closure (its methods reading the function's locals: a constant, another class made there) is
given real cells holding the same values where those are fixed for the compiled entry and the function
never binds them again (:mod:`.class_closures`); a class whose cells hold a tensor, a list made in the call, or
a value bound again later (or whose base is such a class) is made again on each call (:mod:`.class_per_call`). Only classes whose creation changes nothing outside themselves are made so: bases whose
metaclass is ``type`` or torch's (``torch.autograd.Function``'s), with no ``__init_subclass__`` of a user's
that could act beyond the new class (:mod:`.class_hooks`, which also takes the statement's constant
keywords). A base that is no class but a library's stand-in for classes
(``typing.TypedDict``, ``Generic[T]``: PEP 560's ``__mro_entries__``) is checked by the classes it names.
Anything else is one graph break at the class statement.

``collections.namedtuple(...)`` called with constant arguments makes its class the same way (once, while
tracing; the class's ``__module__`` is the calling function's module, as CPython finds it from the frame),
and so does ``type(name, bases, namespace)`` whose namespace holds fixed values (constants, classes, functions
made in the trace, made real as a class body's cells are). ``Enum("Mode", "TRAIN EVAL")`` (enum's functional
API) is made likewise, by :func:`~..variables.enums.functional_class`.

``@dataclasses.dataclass`` (with constant options) on a class this trace made is run natively, once, on that
class: nothing but the trace holds it yet, so the methods ``dataclasses`` writes into it change nothing the
program could see before, and the compiled code holds the processed class as it holds the plain one. Tracing
``dataclasses``' own code instead would stop at its ``sys.modules`` read. On any other class the decorator
changes a class from outside the trace in place: one graph break at the call, saying so.
"""

from __future__ import annotations

import builtins
import collections
import dataclasses
import enum
import functools
import types
import typing
import weakref
from typing import Any

from ..errors import Unsupported, UserError, args_of
from ..made_once import per_call
from ..policy import trusted_module_name
from ..variables.base import Variable
from ..variables.builtins import FOLDED_LIBRARY_FUNCTIONS, MAKE_TYPE
from ..variables.builtins import HANDLERS as BUILTIN_HANDLERS
from ..variables.functions import UserFunctionVariable
from ..variables.nested_functions import NestedFunctionVariable
from ..variables.registry import wrap, wrap_constant_like
from .class_bodies import check_body
from .class_closures import fixed_value, real_closure, undone_on_break
from .class_hooks import build as build_with_keywords
from .class_hooks import check_init_subclass, class_keywords
from .class_per_call import class_template, decorated_template, typed_template
from .new_class_calls import register as register_new_class
from .registry import handler


@handler("LOAD_BUILD_CLASS")
def load_build_class(tx, ins) -> None:
    tx.push(wrap_constant_like(builtins.__build_class__))


def build_class(tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``__build_class__(body, name, *bases)``: the class, made now (see the module's docstring)."""
    if len(args) < 2 or not isinstance(args[0], NestedFunctionVariable):
        raise Unsupported("a class statement without its body", "the translator makes only plain classes")
    body = args[0]
    keywords = class_keywords(kwargs, body.code.co_name)
    if body.defaults or body.kwdefaults:
        raise Unsupported(f"class {body.code.co_name}", "its body has defaults")
    if not all(a.is_python_constant() for a in args[1:]):
        raise Unsupported(f"class {body.code.co_name}", "its bases are only known at run time")
    name, *bases = [a.as_python_constant() for a in args[1:]]
    for base in bases:
        if not isinstance(base, type) and _library_mro_entries(base):
            continue  # typing.TypedDict, Generic[T]: the classes it stands for are checked below
        _check_base(base, name)
    for base in types.resolve_bases(bases):
        _check_base(base, name)
    check_body(tx, body.code, f"class {name}")  # (first: it makes nothing real)
    try:
        if any(per_call(base) is not None for base in bases):
            raise Unsupported(f"class {name}", "a base of it is made on each call")
        closure = real_closure(tx, body.code, body.closure, f"class {name}")
    except Unsupported as refused:  # its methods read values of each call: a template, made again per call
        if keywords:  # (the per-call rebuild passes no keywords)
            raise Unsupported(f"class {name}", "a class statement with keywords whose class is made on each call "
                                               "is not modelled") from refused
        try:
            template = class_template(tx, body, name, bases, refused)
        except TypeError as exc:
            _refused_bases(name, bases, exc)
            raise
        _MADE_BY[template] = weakref.ref(tx.output)  # (a decorator runs on it as on a class made once)
        return wrap(tx, template, None)
    function = types.FunctionType(body.code, body.f_globals, body.code.co_name, None, closure)
    try:
        made = build_with_keywords(function, name, bases, keywords)
    except TypeError as exc:
        _refused_bases(name, bases, exc)
        raise
    return _made(tx, made)


def _refused_bases(name: str, bases: list[Any], exc: TypeError) -> None:
    """Raise the program's own TypeError where the bases alone refuse the class (``class B(bool)``, an
    instance lay-out conflict, no consistent MRO): an empty class on them fails with the same message. A
    failure of the body itself is left to the caller."""
    try:
        types.new_class(name, tuple(bases))
    except TypeError as same:
        if str(same) == str(exc):
            raise UserError(f"class {name}", str(exc), exc_type=TypeError, exc_args=args_of(exc)) from exc


#: each class made while tracing -> the trace (its output graph) that made it
_MADE_BY: weakref.WeakKeyDictionary[type, Any] = weakref.WeakKeyDictionary()


def _made(tx, cls: type) -> Variable:
    """``cls``, just made by this trace: remembered as the trace's own (see :func:`make_dataclass`), and as
    made once for the compiled entry, where the trace stood (``PyCodegen.load_const``)."""
    _MADE_BY[cls] = weakref.ref(tx.output)
    tx.output.side_effects.made_once[id(cls)] = (cls, tx.root().break_point())
    return wrap(tx, cls, None)


def _made_here(tx, cls: Any) -> bool:
    maker = _MADE_BY.get(cls) if isinstance(cls, type) else None
    return maker is not None and maker() is tx.output and not any(
        tx.output.side_effects.stored_class_attribute(cls, name) is not None
        for name in tx.output.side_effects.class_attribute_names)  # the trace's own stores are not on it yet


def make_dataclass(tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``dataclasses.dataclass(cls, **options)`` / ``dataclasses.dataclass(**options)`` (the decorator)."""
    if not all(v.is_python_constant() for v in kwargs.values()) or len(args) > 1:
        raise Unsupported("dataclasses.dataclass(...)", "its options are only known at run time")
    options = {k: v.as_python_constant() for k, v in kwargs.items()}
    if not args:
        return _DataclassDecorator(options)
    return _decorate_own_class(tx, functools.partial(dataclasses.dataclass, **options), "dataclasses.dataclass", args[0])


def _own_class_decorator(decorator: Any, what: str) -> Any:
    """The handler of a standard-library class decorator that writes only into the class it is given: run
    natively on a class this trace made, as ``dataclass`` is; on another class its code is traced (a class that
    already has what it would write is left as it is)."""

    def handler(tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        if kwargs or len(args) != 1 or args[0].source is not None or not _made_here(tx, getattr(args[0], "value", None)):
            return UserFunctionVariable(decorator).call(tx, args, kwargs)
        return _decorate_own_class(tx, decorator, what, args[0])

    return handler


#: Class decorators handled by :func:`_own_class_decorator`: total_ordering writes the comparisons a class lacks
#: (and renames functools' own helpers, the same on every call), runtime_checkable marks a Protocol for
#: isinstance, unique checks an Enum's values.
_OWN_CLASS_DECORATORS = {functools.total_ordering: "functools.total_ordering",
                         typing.runtime_checkable: "typing.runtime_checkable", enum.unique: "enum.unique"}


def _decorate_own_class(tx, decorator: Any, what: str, argument: Variable) -> Variable:
    """``decorator(cls)``, run now on a class this trace made (nothing but the trace holds it yet, so what the
    decorator writes into it changes nothing the program saw); on any other class, a break at the call."""
    cls = getattr(argument, "value", None)
    if argument.source is not None or not _made_here(tx, cls):
        raise Unsupported(f"{what}(cls)", "it changes in place a class made outside this trace",
                          hint="decorate the class at module level, or in the compiled function itself")
    try:
        made = decorator(cls)
    except Exception as exc:
        if type(exc).__module__ == "builtins":  # eager's own error (``enum.unique``'s ValueError): the program's
            raise UserError(f"{what}({cls.__qualname__})", f"it raises {type(exc).__name__}: {exc}",
                            exc_type=type(exc), exc_args=exc.args) from exc
        raise Unsupported(f"{what}({cls.__qualname__})", f"it raises {type(exc).__name__}: {exc}") from exc
    if per_call(cls) is not None:  # a template: each call's class is decorated the same way as it is made
        _MADE_BY[made] = weakref.ref(tx.output)
        return wrap(tx, decorated_template(cls, made, decorator), None)
    return _made(tx, made)


class _DataclassDecorator(Variable):
    """``dataclasses.dataclass(frozen=True)``: the decorator, applied by :func:`make_dataclass` when called."""

    def __init__(self, options: dict[str, Any]) -> None:
        self.options = options

    def call(self, tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        merged = {k: wrap(tx, v, None) for k, v in self.options.items()}
        return make_dataclass(tx, args, {**merged, **kwargs})

    def describe(self) -> str:
        return "a dataclasses.dataclass(...) decorator"


def _library_mro_entries(base: Any) -> bool:
    """A base that is no class but names classes (PEP 560 ``__mro_entries__``), from a library whose
    answer changes nothing (``typing.TypedDict``, ``typing.Generic[T]``, ``list[int]``)."""
    if getattr(type(base), "__mro_entries__", None) is None and not isinstance(base, types.FunctionType):
        return False
    return hasattr(base, "__mro_entries__") and trusted_module_name(getattr(base, "__module__", None) or "")


def _check_base(base: Any, name: str) -> None:
    if not isinstance(base, type):
        raise Unsupported(f"class {name}", f"a base that is not a class ({type(base).__name__})")
    meta = type(base)
    if meta is not type and not trusted_module_name(meta.__module__ or ""):
        raise Unsupported(f"class {name}", f"its metaclass {meta.__qualname__} may act when the class is made")
    check_init_subclass((base,), name)  # a user's hook that writes only into the new class runs as it is made


def _refused_non_class_bases(name: str, bases: tuple) -> None:
    """``type(name, bases, ns)`` with a base that is no class and of a C type (``None``, ``1``): CPython refuses it
    with a TypeError before any Python code could run, which the program gets, its message taken from that same
    refusal on an empty namespace."""
    if any(not isinstance(base, type) and type(base).__flags__ & (1 << 9) for base in bases):
        return  # an instance of a Python class: its __mro_entries__ lookup could run its code (left to the break)
    try:
        type(name, bases, {})
    except TypeError as exc:
        raise UserError(f"type({name!r}, ...)", str(exc), exc_type=TypeError, exc_args=args_of(exc)) from exc


def make_namedtuple_class(tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable | None:
    """``collections.namedtuple(typename, field_names, ...)``: the class, made now; None (a break at the
    call) when an argument is only known at run time (defaults holding tensors)."""
    if not all(a.is_python_constant() for a in [*args, *kwargs.values()]):
        return None
    options = {k: v.as_python_constant() for k, v in kwargs.items()}
    if options.get("module") is None:  # CPython names the caller's module; called here, it would name loom's
        options["module"] = tx.f_globals.get("__name__", "__main__")
    try:
        made = collections.namedtuple(*(a.as_python_constant() for a in args), **options)
    except (TypeError, ValueError):
        return None  # eager's own error, raised where the call runs as Python
    return _made(tx, made)


def make_type(tx, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
    """``type(name, bases, namespace)``: the class, made now, as a class statement's is (see the module's
    docstring); the namespace's values must be fixed for the compiled entry, as a class body's cells must."""
    name, bases, namespace = args
    if not (name.is_python_constant() and bases.is_python_constant()):
        raise Unsupported("type(name, bases, namespace)", "its name or bases are only known at run time")
    name, bases = name.as_python_constant(), bases.as_python_constant()
    items = getattr(namespace, "items", None)
    if type(name) is not str or type(bases) is not tuple or namespace.python_type() is not dict \
            or not isinstance(items, dict) or not all(type(key) is str for key in items):
        raise Unsupported(f"type({name!r}, ...)", "not a name, a tuple of bases and a dict of names")
    if not all(isinstance(base, type) for base in bases):
        _refused_non_class_bases(name, bases)
    for base in bases:
        _check_base(base, name)
    what = f"type({name!r}, ...)"
    with undone_on_break(tx) as journal:
        real = {key: fixed_value(tx, value, what, f"its namespace's {key!r}", journal) for key, value in items.items()}
    real.setdefault("__module__", tx.f_globals.get("__name__", "__main__"))  # CPython reads the caller's globals
    if any(per_call(base) is not None for base in bases):  # made on each call, over that call's bases
        template = typed_template(tx, name, bases, real)
        _MADE_BY[template] = weakref.ref(tx.output)
        return wrap(tx, template, None)
    try:
        made = type(name, bases, real)
    except Exception as exc:  # the bases' own TypeError (a duplicate base, no consistent MRO) is the program's
        if isinstance(exc, TypeError):
            _refused_bases(name, list(bases), exc)
        raise Unsupported(what, f"making the class raised {type(exc).__name__}: {exc}") from exc
    return _made(tx, made)


BUILTIN_HANDLERS[builtins.__build_class__] = build_class
MAKE_TYPE.append(make_type)
register_new_class(make_type)
BUILTIN_HANDLERS[collections.namedtuple] = make_namedtuple_class
BUILTIN_HANDLERS[dataclasses.dataclass] = make_dataclass
for _decorator, _what in _OWN_CLASS_DECORATORS.items():
    BUILTIN_HANDLERS[_decorator] = _own_class_decorator(_decorator, _what)
    FOLDED_LIBRARY_FUNCTIONS.add(_decorator)  # a Python function: answered here, not inlined
