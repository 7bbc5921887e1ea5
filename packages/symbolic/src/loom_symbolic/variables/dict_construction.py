"""``dict(...)``: a new dict from a mapping (its items, or its keys and items), from an iterable of pairs, and from
keywords; more than one positional argument is CPython's TypeError."""

from __future__ import annotations

from ..errors import UserError
from . import container_methods as _container_methods
from .builtins import builtin
from .containers import DictVariable


@builtin(dict)
def builtin_dict(tx, args, kwargs):
    if len(args) > 1:
        message = f"dict expected at most 1 argument, got {len(args)}"
        raise UserError("dict()", message, exc_type=TypeError, exc_args=(message,))
    result = DictVariable({})
    if args:
        source = args[0]
        if isinstance(source, DictVariable) and not _container_methods.dict_methods.merged_by_keys(source):
            result.items.update(source.items)
        else:
            _container_methods.update_from_pairs(tx, result.items, source)
    result.items.update(kwargs)
    return result
