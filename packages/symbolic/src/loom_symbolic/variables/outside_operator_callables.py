"""``operator.itemgetter``, ``attrgetter`` and ``methodcaller`` objects from outside the frame (passed in, kept
on an object or in a global): a call is traced through the same Python stand-in a call of one made in the frame
goes through (:mod:`loom_symbolic.polyfills.operator`), built from the real object's parts.

The parts are read from its ``__reduce__`` (``(itemgetter, items)``; a ``methodcaller`` with keywords reduces to
``(partial(methodcaller, name, **kwargs), args)``) and must all be constants; they are guarded through the
object's ``repr``, which spells every one of them (``operator.methodcaller('clamp', min=1.0)``) and distinguishes
what a constant guard would (``1``, ``1.0`` and ``True``). The object itself stays what it is: returned or
stored, it is the real one.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

from loom_guards import Attr, Called

from .. import polyfills
from . import registry
from .constant import is_constant_value
from .functions import UserFunctionVariable
from .real_objects import UserObjectVariable
from .wrap_rules import _object_variable, _remember

_MAKERS = (operator.itemgetter, operator.attrgetter, operator.methodcaller)


class OutsideOperatorCallable(UserObjectVariable):
    """A real ``itemgetter``/``attrgetter``/``methodcaller`` whose call is the stand-in's, made from ``args``
    and ``kwargs`` (the constants it was made with)."""

    def __init__(self, value: Any, source: Any, args: tuple, kwargs: dict) -> None:
        super().__init__(value, source)
        self.made_with = (args, kwargs)

    def call(self, tx, args: list, kwargs: dict) -> Any:
        made_args, made_kwargs = self.made_with
        stand_in = UserFunctionVariable(polyfills.replacement_for(type(self.value)))
        made = stand_in.call(tx, [registry.wrap(tx, a, None) for a in made_args],
                             {k: registry.wrap(tx, v, None) for k, v in made_kwargs.items()})
        return made.call(tx, args, kwargs)


def _parts(value: Any) -> tuple[tuple, dict] | None:
    """The positional and keyword arguments ``value`` was made with, from its ``__reduce__``."""
    maker, args = value.__reduce__()[:2]
    kwargs: dict = {}
    if type(maker) is functools.partial:  # a methodcaller with keywords
        args, kwargs = (*maker.args, *args), dict(maker.keywords)
    if not all(is_constant_value(a) for a in (*args, *kwargs.values())):
        return None
    return tuple(args), kwargs


def _wrap_operator_callable(tx, value: Any, source: Any) -> Any:
    if tx is None or source is None or polyfills.replacement_for(type(value)) is None:
        return _remember(tx, value, source, lambda: _object_variable(tx, value, source))

    def make() -> Any:
        parts = _parts(value)
        if parts is None:
            return _object_variable(tx, value, source)
        tx.output.guards.add("type", source, value)
        tx.output.guards.add("constant", Called(Attr(source, "__repr__")), repr(value))
        return OutsideOperatorCallable(value, source, *parts)

    return _remember(tx, value, source, make)


# before the builtin callables' rule (210), which would take them as opaque callables
registry.add_rule(205, lambda v: type(v) in _MAKERS, _wrap_operator_callable)
for _cls in _MAKERS:
    registry.add_exact_type(_cls, _wrap_operator_callable)
