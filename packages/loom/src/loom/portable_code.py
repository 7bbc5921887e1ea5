"""A rewritten code object written for another process: ``marshal`` for the code, names for the objects in it.

The translator's output code loads some objects as constants that ``marshal`` cannot write: a builtin
class it calls to rebuild a source (``type(self.block).forward.__closure__[0]...``, as transformers'
output-capturing decorators make GPT-2's frame do), an enum member, a torch dtype. Each such constant is
replaced, before marshalling, by ``None`` at its place (which code object, which index) and described
by :func:`loom_guards.portable_values.describe_value` in identity mode: only an object that is one object
per process under its name (a class, a function, a module, a named singleton) qualifies, since the
code compares or calls that very object. Loading puts the object its description names back at the
same place. Any other constant (a tensor, an instance) makes the code not portable.
"""

from __future__ import annotations

import marshal
import types
from typing import Any

from loom_guards.portable_values import NotPortable, describe_value, rebuild_value

__all__ = ["NotPortable", "dump_code", "load_code"]


def _marshals(value: Any) -> bool:
    try:
        marshal.dumps(value)
    except ValueError:
        return False
    return True


def _strip(code: types.CodeType, path: list[int], named: list[list[Any]]) -> types.CodeType:
    """``code`` with each constant marshal cannot write set to None, its place and description added to
    ``named``; nested code objects likewise."""
    consts = list(code.co_consts)
    for index, value in enumerate(consts):
        if isinstance(value, types.CodeType):
            consts[index] = _strip(value, [*path, index], named)
        elif not _marshals(value):
            named.append([[*path, index], describe_value(value, identity=True)])
            consts[index] = None
    return code.replace(co_consts=tuple(consts))


def dump_code(code: types.CodeType) -> tuple[bytes, list[list[Any]]]:
    """``code`` as marshal bytes and the JSON-compatible list of the objects taken out of its constants;
    raises :class:`NotPortable` naming a constant that no name carries to another process."""
    named: list[list[Any]] = []
    stripped = _strip(code, [], named)
    return marshal.dumps(stripped), named


def _put(code: types.CodeType, path: list[int], value: Any) -> types.CodeType:
    consts = list(code.co_consts)
    head, rest = path[0], path[1:]
    if rest:
        if not isinstance(consts[head], types.CodeType):
            raise NotPortable(f"constant place {path} does not name a nested code object")
        consts[head] = _put(consts[head], rest, value)
    else:
        if consts[head] is not None:
            raise NotPortable(f"constant place {path} was not left empty")
        consts[head] = value
    return code.replace(co_consts=tuple(consts))


def load_code(data: bytes, named: list[list[Any]]) -> types.CodeType:
    """The code :func:`dump_code` wrote, with its named objects rebuilt in this process; raises
    :class:`NotPortable` when a description names nothing here or the data is not what was written."""
    code = marshal.loads(data)
    if not isinstance(code, types.CodeType):
        raise NotPortable("the data is not a code object")
    for place, description in named:
        if not place or not all(isinstance(i, int) for i in place):
            raise NotPortable(f"malformed constant place {place!r}")
        try:
            code = _put(code, place, rebuild_value(description))
        except IndexError:
            raise NotPortable(f"constant place {place} is outside the code") from None
    return code
