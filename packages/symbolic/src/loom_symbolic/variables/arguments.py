"""Binding a call's arguments to a code object's parameters, as CPython does (with its TypeError messages)."""

from __future__ import annotations

import types

from ..errors import UserError
from .base import Variable
from .containers import DictVariable, TupleVariable

CO_VARARGS = 0x04
CO_VARKEYWORDS = 0x08


def bind_arguments(
    code: types.CodeType,
    defaults: list[Variable],
    kwdefaults: dict[str, Variable],
    args: list[Variable],
    kwargs: dict[str, Variable],
) -> dict[str, Variable]:
    """Bind call arguments to ``code``'s parameters as CPython does, with its TypeError messages."""
    name = code.co_name
    nargs, nposonly, nkwonly = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    names = code.co_varnames
    positional = names[:nargs]
    kwonly = names[nargs : nargs + nkwonly]
    has_varargs = bool(code.co_flags & CO_VARARGS)
    has_varkw = bool(code.co_flags & CO_VARKEYWORDS)
    bound: dict[str, Variable] = dict(zip(positional, args))
    extra = args[nargs:]
    if extra and not has_varargs:
        raise UserError(f"calling {name}()", f"{name}() takes {nargs} positional arguments but {len(args)} were given", exc_type=TypeError)
    slot = nargs + nkwonly
    if has_varargs:
        bound[names[slot]] = TupleVariable(list(extra))
        slot += 1
    varkw: dict[str, Variable] = {}
    for key, value in kwargs.items():
        if key in kwonly or key in positional[nposonly:]:
            if key in bound:
                raise UserError(f"calling {name}()", f"{name}() got multiple values for argument {key!r}", exc_type=TypeError)
            bound[key] = value
        elif has_varkw:
            varkw[key] = value
        elif key in positional[:nposonly]:
            raise UserError(f"calling {name}()", f"{name}() got some positional-only arguments passed as keyword arguments: {key!r}", exc_type=TypeError)
        else:
            raise UserError(f"calling {name}()", f"{name}() got an unexpected keyword argument {key!r}", exc_type=TypeError)
    first_default = nargs - len(defaults)
    missing = []
    for i, param in enumerate(positional):
        if param not in bound:
            if i >= first_default:
                bound[param] = defaults[i - first_default]
            else:
                missing.append(param)
    if missing:
        raise UserError(f"calling {name}()", f"{name}() missing {len(missing)} required positional argument(s): {', '.join(map(repr, missing))}", exc_type=TypeError)
    for param in kwonly:
        if param not in bound:
            if param not in kwdefaults:
                raise UserError(f"calling {name}()", f"{name}() missing 1 required keyword-only argument: {param!r}", exc_type=TypeError)
            bound[param] = kwdefaults[param]
    if has_varkw:
        bound[names[slot]] = DictVariable(varkw)
    return bound
