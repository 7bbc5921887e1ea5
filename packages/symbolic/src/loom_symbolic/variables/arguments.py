"""Binding a call's arguments to a code object's parameters, as CPython does (with its TypeError messages)."""

from __future__ import annotations

import functools
import keyword
import types
from typing import Any

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
    qualname: str | None = None,
) -> dict[str, Variable]:
    """Bind call arguments to ``code``'s parameters as CPython does. A call that cannot bind raises CPython's
    TypeError; its message is known (``str(e)`` in the trace) where the function's ``qualname`` is given."""
    try:
        return _bind(code, defaults, kwdefaults, args, kwargs)
    except UserError as error:
        if qualname is not None and error.exc_type is TypeError:
            message = _cpython_message(code, len(defaults), set(kwdefaults), len(args), list(kwargs), qualname)
            if message is not None:
                error.exc_args = (message,)
        raise


def _cpython_message(code: types.CodeType, ndefaults: int, kwdefaults: set[str], nargs: int, keywords: list[str],
                     qualname: str) -> str | None:
    """The TypeError text CPython gives for this call: a stand-in with the same parameters (and a body that
    does nothing) is called with as many arguments and the same keywords. None where it binds (the two
    disagree: the message stays unknown) or the parameters cannot be spelled."""
    stand_in = _stand_in(code, ndefaults, frozenset(kwdefaults))
    if stand_in is None:
        return None
    stand_in.__qualname__ = qualname
    try:
        stand_in(*[None] * nargs, **dict.fromkeys(keywords))
    except TypeError as exc:
        return str(exc)
    return None


@functools.lru_cache(maxsize=256)
def _stand_in(code: types.CodeType, ndefaults: int, kwdefaults: frozenset[str]) -> types.FunctionType | None:
    nargs, nposonly, nkwonly = code.co_argcount, code.co_posonlyargcount, code.co_kwonlyargcount
    names = code.co_varnames
    if not all(n.isidentifier() and not keyword.iskeyword(n) for n in names[:nargs + nkwonly + 2]):
        return None
    first_default = nargs - ndefaults
    params = [n + ("=None" if i >= first_default else "") for i, n in enumerate(names[:nargs])]
    if nposonly:
        params.insert(nposonly, "/")
    slot = nargs + nkwonly
    if code.co_flags & CO_VARARGS:
        params.append("*" + names[slot])
        slot += 1
    elif nkwonly:
        params.append("*")
    params += [n + ("=None" if n in kwdefaults else "") for n in names[nargs:nargs + nkwonly]]
    if code.co_flags & CO_VARKEYWORDS:
        params.append("**" + names[slot])
    namespace: dict[str, Any] = {}
    exec(f"def stand_in({', '.join(params)}): pass", namespace)  # names checked as identifiers above
    return namespace["stand_in"]


def _bind(
    code: types.CodeType,
    defaults: list[Variable],
    kwdefaults: dict[str, Variable],
    args: list[Variable],
    kwargs: dict[str, Variable],
) -> dict[str, Variable]:
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
