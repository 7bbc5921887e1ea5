"""Calls of a ``functools.singledispatch`` function. Its wrapper looks the first argument's class up in a
``weakref.WeakKeyDictionary`` cache (weak references as dict keys, which no guard can name) before the
registry, so it is not traced as written: the implementation is chosen while tracing, as the wrapper would
choose it for that class, and called. Guards keep the choice valid: the registry's keys (a registration
changes them) and the chosen entry (registering a class again replaces it); the argument's class is guarded
where the argument is. A registry holding an abstract base class (whose virtual subclasses can change the
choice without a registration: the wrapper's ``cache_token``) is traced as written."""

from __future__ import annotations

import functools
import types
from typing import TYPE_CHECKING, Any

from loom_guards import Attr, Const, Item

from .registry import wrap

if TYPE_CHECKING:
    from .base import Variable
    from .protocol import Translator as InstructionTranslator


#: The code of the wrapper function ``functools.singledispatch`` makes.
WRAPPER_CODE: types.CodeType = functools.singledispatch(lambda value: value).__code__


def _cell_source(owner: Any, fn: types.FunctionType, name: str) -> Any:
    return Attr(Item(Attr(owner, "__closure__"), fn.__code__.co_freevars.index(name)), "cell_contents")


def _cell(fn: types.FunctionType, name: str) -> Any:
    return fn.__closure__[fn.__code__.co_freevars.index(name)].cell_contents


def call_dispatched(tx: InstructionTranslator, fn: types.FunctionType, source: Any, args: list[Variable],
                    kwargs: dict[str, Variable]) -> Variable | None:
    """``fn(*args, **kwargs)`` for a singledispatch wrapper ``fn``: the implementation registered for the first
    argument's class, called; None where the wrapper is traced as written (no argument, an ABC registered, a
    class found only through an ABC)."""
    if not args:
        return None  # the wrapper's own TypeError
    owner = source if source is not None else Const(fn)
    implementation = _chosen(tx, _cell(fn, "dispatch"), _cell_source(owner, fn, "dispatch"), args[0].python_type())
    return None if implementation is None else implementation.call(tx, args, kwargs)


def call_dispatch(tx: InstructionTranslator, fn: types.FunctionType, source: Any, args: list[Variable],
                  kwargs: dict[str, Variable]) -> Variable | None:
    """``fn(cls)`` for a singledispatch wrapper's ``dispatch`` function ``fn`` (``wrapper.dispatch(cls)``, as
    ``functools.singledispatchmethod`` calls it): the implementation it would choose for a class known while
    tracing; None where it is traced as written."""
    if kwargs or len(args) != 1 or not args[0].is_python_constant():
        return None
    cls = args[0].as_python_constant()
    if not isinstance(cls, type):
        return None
    return _chosen(tx, fn, source if source is not None else Const(fn), cls)


def _chosen(tx: InstructionTranslator, dispatch: types.FunctionType, dispatch_source: Any,
            cls: type) -> Variable | None:
    """The registry's entry that ``dispatch`` picks for ``cls``, read through the guarded registry (None where
    an ABC's cache token or a virtual subclass decides)."""
    if _cell(dispatch, "cache_token") is not None:
        return None
    tx.output.guards.add("constant", _cell_source(dispatch_source, dispatch, "cache_token"), None)
    registry: dict = _cell(dispatch, "registry")
    chosen = dispatch(cls)  # the real choice (it fills the real cache, as the eager call does)
    key = next((klass for klass in cls.__mro__ if registry.get(klass) is chosen), None)
    if key is None:
        return None
    registry_variable = wrap(tx, registry, _cell_source(dispatch_source, dispatch, "registry"))  # keys guarded
    return registry_variable.getitem(tx, wrap(tx, key, None))  # guarded as read


#: The code of the ``dispatch`` function each singledispatch wrapper holds (``wrapper.dispatch``).
DISPATCH_CODE: types.CodeType = _cell(functools.singledispatch(lambda value: value), "dispatch").__code__
