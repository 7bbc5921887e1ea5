"""Parametrised typing forms (``list[str]``, ``typing.List[int]``, ``int | None``) met while tracing.

They are immutable: their ``__origin__``, ``__args__`` and other attributes are folded on the real object
(``typing.get_origin``/``get_args``, ``torch.jit.isinstance``), as other frozen library objects are. A
``GenericAlias`` passes ``isinstance(alias, type)`` (it forwards ``__class__``), so without this rule it
would be taken for a class whose attributes come from its metaclass.
"""

from __future__ import annotations

import collections.abc
import types
import typing
from typing import Any

from loom_guards import Attr

from ..errors import Unsupported, UserError
from ..policy import trusted_module_name
from . import operator_semantics as _operators
from . import registry
from .base import Variable
from .constant import FrozenObjectVariable
from .containers import ListVariable, TupleVariable

#: Types of the parametrised forms: ``list[str]``, ``int | None``, and typing's own aliases.
_FORM_TYPES: tuple[type, ...] = (types.GenericAlias, types.UnionType, typing._BaseGenericAlias)  # type: ignore[attr-defined]


def is_typing_form(value: Any) -> bool:
    """Whether ``value`` is a parametrised typing form (by its real type, not the ``__class__`` it forwards)."""
    return issubclass(type(value), _FORM_TYPES)


class TypingFormVariable(FrozenObjectVariable):
    """A parametrised typing form; ``Box[int](item)`` of a user's ``Generic`` class makes a ``Box`` as typing does."""

    def var_getattr(self, tx: Any, name: str) -> Variable:
        value = getattr(self.value, name, None)
        if self.source is not None and _holds_mutable(value):
            # ``list[args].__args__`` holds the program's own list: read through the form, so that it stays that
            # object (a folded copy would not be ``args``, nor see its later changes)
            return registry.wrap(tx, value, Attr(self.source, name))
        return super().var_getattr(tx, name)

    def call(self, tx: Any, args: list[Variable], kwargs: dict[str, Variable]) -> Variable:
        form, origin = self.value, getattr(self.value, "__origin__", None)
        if type(form) is not typing._GenericAlias or not isinstance(origin, type) or not form._inst \
                or trusted_module_name(origin.__module__ or ""):  # type: ignore[attr-defined]
            return super().call(tx, args, kwargs)
        # typing's _BaseGenericAlias.__call__: the origin's instance, told which alias made it where it can be
        result = registry.wrap(tx, origin, Attr(self.source, "__origin__") if self.source is not None else None) \
            .call(tx, args, kwargs)
        try:
            result.store_attr(tx, "__orig_class__", self)
        except UserError as exc:  # a __slots__ class refuses it with an AttributeError, which typing passes over
            if not issubclass(exc.exc_type, AttributeError):  # another error: typing passes it over from 3.13 on
                raise Unsupported(f"{form}(...)", f"setting __orig_class__ raises {exc.exc_type.__name__}") from exc
        return result


def _holds_mutable(value: Any) -> bool:
    """Whether ``value`` is, or is a tuple holding, a mutable builtin container (a form's ``__args__`` may)."""
    if isinstance(value, tuple):
        return any(_holds_mutable(v) for v in value)
    return isinstance(value, (list, dict, set, bytearray))


def _wrap_typing_form(tx: Any, value: Any, source: Any) -> FrozenObjectVariable:
    if tx is not None and source is not None:
        tx.output.guards.add("identity", source, value)
    return TypingFormVariable(value, source)


# Before the builtin-callable (220) and class (240) rules, which a GenericAlias would otherwise match.
registry.add_rule(215, is_typing_form, _wrap_typing_form)


_NOT_REAL = object()
# a classmethod written in Python on 3.11, a C method from 3.12 (then matched as a builtin method below)
_GENERIC_GETITEM = getattr(typing.Generic.__class_getitem__, "__func__", None)
#: The ``__class_getitem__`` functions (classmethods' ``__func__``) that only build a typing form: Generic's,
#: ``types.GenericAlias`` (``collections.abc.Mapping[str, int]``) and ``collections.abc.Callable``'s alias class,
#: whose ``__new__`` checks and flattens ``Callable[[T], R]``'s arguments and keeps them.
_FORM_BUILDERS = tuple(f for f in (_GENERIC_GETITEM, types.GenericAlias,
                                   collections.abc.Callable.__dict__["__class_getitem__"].__func__) if f is not None)


def _real_index(value: Variable) -> Any:
    """The real object an index stands for (a class, a TypeVar, a constant, a tuple of them), or ``_NOT_REAL``."""
    if isinstance(value, TupleVariable) or (isinstance(value, ListVariable) and value.python_type() is list):
        # a list only as a form's argument list (``Callable[[T], R]``): the form keeps its items, never the list
        items = [_real_index(v) for v in value.items]
        if any(i is _NOT_REAL for i in items):
            return _NOT_REAL
        return items if isinstance(value, ListVariable) else tuple(items)
    if value.is_python_constant():
        return value.as_python_constant()
    real = _operators.real_object(value)
    return _NOT_REAL if real is _operators._NO_OBJECT else real


def _pure_subscript(container: Any) -> bool:
    """Whether ``container[...]`` only builds a typing form: a special form (``Union``, ``Optional``), a
    parametrised alias (``typing.Dict``), or a class whose ``__class_getitem__`` is ``Generic``'s or a builtin's
    (``list[int]``). Other classes may run their own ``__class_getitem__``."""
    if isinstance(container, typing._SpecialForm) or is_typing_form(container):  # type: ignore[attr-defined]
        return True
    if not isinstance(container, type):
        return False
    getter = getattr(container, "__class_getitem__", None)
    own = getattr(getter, "__func__", None)
    # Generic's, collections.abc's (classmethod(GenericAlias), Callable's alias class) and a builtin's (list[int])
    # only build the form
    return (own is not None and own in _FORM_BUILDERS) or isinstance(getter, types.BuiltinMethodType)


def _fold_subscript(tx: Any, container: Variable, index: Variable) -> Variable | None:
    """``typing.Union[int, str]``, ``OrderedSet[T]``: made on the real objects (typing's own code reads the
    caller's frame, which the trace has not got); the form is immutable, so the fold is exact."""
    real = _operators.real_object(container)
    if real is _operators._NO_OBJECT or not _pure_subscript(real):
        return None
    key = _real_index(index)
    if key is _NOT_REAL:
        return None
    try:
        form = real[key]
    except Exception:  # the program's own error: left to the ordinary path, which raises it
        return None
    if any(isinstance(arg, list) for arg in getattr(form, "__args__", ())):
        # ``list[args]`` keeps the list it is given: one made here would not be the program's own object
        raise Unsupported(f"subscript of {container.describe()}", "the typing form keeps a list of the program's")
    return TypingFormVariable(form, None)


_operators.SUBSCRIPT_FOLDS.append(_fold_subscript)
