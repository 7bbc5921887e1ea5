"""``warnings.simplefilter`` / ``filterwarnings`` / ``resetwarnings`` inside a traced ``catch_warnings`` block
(:mod:`.warnings_blocks`): with constant arguments, the filter goes on the trace's copy of the filters (and the
block's steps, which guards replay) and the call is made after the graph. Outside a traced block (a lasting
change of the process's filters), or with an argument known only at run time, the call stays a graph break."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

from .base import Variable
from .builtins import FOLDED_LIBRARY_FUNCTIONS, builtin
from .constant import ConstantVariable
from .warnings_blocks import FilterCall, defer, filter_item


def _constants(args: list[Variable], kwargs: dict[str, Variable]) -> tuple[tuple, dict] | None:
    if not all(value.is_python_constant() for value in [*args, *kwargs.values()]):
        return None
    return tuple(a.as_python_constant() for a in args), {k: v.as_python_constant() for k, v in kwargs.items()}


def _bind(fn: Any, args: tuple, kwargs: dict) -> dict | None:
    try:
        bound = inspect.signature(fn).bind(*args, **kwargs)
    except TypeError:
        return None
    bound.apply_defaults()
    return dict(bound.arguments)


def _filter_call(fn: Any, regex: bool):
    """The handler of ``warnings.<fn>(...)``: inside a traced block, with constant arguments, the filter is
    added to the trace's copy (and its steps) and the call made after the graph; else None (a break)."""

    def handler(tx, args, kwargs):
        record = tx.output.__dict__.get("warnings_steps")
        constants = _constants(args, kwargs)
        if record is None or not record.depth or constants is None:
            return None  # outside a traced block (a lasting change), or run-time arguments: a break
        bound = _bind(fn, *constants)
        if bound is None:
            return None
        append = bound.pop("append")
        item = filter_item(**bound, regex=regex)
        if item is None or type(append) not in (bool, int):
            return None
        record.steps.append(("add", item, bool(append)))
        fn(*constants[0], **constants[1])  # on the trace's copy of the filters
        defer(tx, FilterCall(fn, *constants))
        return ConstantVariable(None)

    return handler


builtin(warnings.simplefilter)(_filter_call(warnings.simplefilter, regex=False))
builtin(warnings.filterwarnings)(_filter_call(warnings.filterwarnings, regex=True))


@builtin(warnings.resetwarnings)
def builtin_resetwarnings(tx, args, kwargs):
    """``warnings.resetwarnings()`` inside a traced block: the copy of the filters emptied, after the graph."""
    record = tx.output.__dict__.get("warnings_steps")
    if args or kwargs or record is None or not record.depth:
        return None
    record.steps.append(("reset",))
    warnings.resetwarnings()  # the trace's copy of the filters
    defer(tx, FilterCall(warnings.resetwarnings, (), {}))
    return ConstantVariable(None)


FOLDED_LIBRARY_FUNCTIONS.update((warnings.simplefilter, warnings.filterwarnings, warnings.resetwarnings))
