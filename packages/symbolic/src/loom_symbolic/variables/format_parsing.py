"""``_string.formatter_parser`` and ``_string.formatter_field_name_split`` of a template known while tracing:
the C parsers behind ``string.Formatter`` (whose ``vformat`` is Python, traced), run on the constant now.

Each returns an iterator of its own C type; here it is an iterator over the parsed pieces, of that type to
``type()``, that cannot outlive the frame (it has no Python spelling to be rebuilt by). The real iterators
raise a malformed template's ValueError part-way, after the pieces before it: such a template is left to
them (a graph break at the call).
"""

from __future__ import annotations

import _string
from typing import TYPE_CHECKING

from .builtins import builtin
from .constant import ConstantVariable
from .iterators import SnapshotIterator
from .sequences import TupleVariable

if TYPE_CHECKING:
    from .base import Variable

_PARSER_TYPE = type(_string.formatter_parser(""))
_FIELD_NAME_TYPE = type(_string.formatter_field_name_split("a")[1])


class ParsedPieces(SnapshotIterator):
    """The pieces a C format parser yields, parsed while tracing; ``type()`` of it is the C iterator's."""

    def __init__(self, items: list[Variable], real_type: type) -> None:
        super().__init__(items)
        self.real_type = real_type

    def python_type(self) -> type:
        return self.real_type


def _constant_text(args: list[Variable], kwargs: dict[str, Variable]) -> str | None:
    if kwargs or len(args) != 1 or not args[0].is_python_constant():
        return None
    text = args[0].as_python_constant()
    return text if type(text) is str else None


@builtin(_string.formatter_parser)
def formatter_parser(tx, args, kwargs):
    text = _constant_text(args, kwargs)
    if text is None:
        return None
    try:
        pieces = list(_string.formatter_parser(text))
    except ValueError:
        return None
    return ParsedPieces([ConstantVariable(piece) for piece in pieces], _PARSER_TYPE)


@builtin(_string.formatter_field_name_split)
def formatter_field_name_split(tx, args, kwargs):
    text = _constant_text(args, kwargs)
    if text is None:
        return None
    try:
        first, rest = _string.formatter_field_name_split(text)
        accessors = list(rest)
    except ValueError:
        return None
    return TupleVariable([ConstantVariable(first),
                          ParsedPieces([ConstantVariable(a) for a in accessors], _FIELD_NAME_TYPE)])
