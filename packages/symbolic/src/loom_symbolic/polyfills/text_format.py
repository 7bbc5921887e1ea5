"""``str.format`` and ``str.format_map`` of a template known while tracing, with fields only known at run time.

The template is parsed while tracing (:func:`parse_template`, on the constant, by CPython's own parser), so
that what is traced is only the fields' work: the argument lookup, the ``.attr``/``[key]`` accessors, the
conversion and ``format(value, spec)`` (:func:`format_fields`), each through the translator's usual handlers
(a ``__format__`` or ``__getitem__`` written in Python is inlined). Templates whose errors depend on the
order CPython meets them in (a malformed template, mixed automatic and manual numbering) are not parsed:
the call stays a graph break.
"""

from __future__ import annotations

import _string
from typing import Any

#: CPython nests replacement fields in a format spec at most this deep ("Max string recursion exceeded").
_MAX_DEPTH = 2

_CONVERTERS = {"r": repr, "s": str, "a": ascii}


class _Unparsed(Exception):
    """A template :func:`parse_template` leaves to CPython."""


def parse_template(template: str, positional: bool = True) -> tuple | None:
    """``template``'s pieces: a tuple of ``(literal, field)``, ``field`` None or ``(first, accessors,
    conversion, spec)`` where ``first`` is an argument index or a keyword name, ``accessors`` a tuple of
    ``(is_attribute, key)`` and ``spec`` a string or, where it holds fields itself, pieces. Automatic
    numbering is resolved here. None for a template CPython would reject, or (``positional`` False, as
    ``format_map`` has) one that names positional fields."""
    try:
        return _parse(template, [0, None], positional, _MAX_DEPTH)
    except (_Unparsed, ValueError):
        return None


def _parse(template: str, numbering: list, positional: bool, depth: int) -> tuple:
    if depth <= 0:
        raise _Unparsed
    pieces = []
    for literal, field_name, spec, conversion in _string.formatter_parser(template):
        if field_name is None:
            pieces.append((literal, None))
            continue
        first, rest = _string.formatter_field_name_split(field_name)
        if first == "":
            if numbering[1] == "manual" or not positional:
                raise _Unparsed
            first, numbering[0], numbering[1] = numbering[0], numbering[0] + 1, "automatic"
        elif isinstance(first, int):
            if numbering[1] == "automatic" or not positional:
                raise _Unparsed
            numbering[1] = "manual"
        if conversion not in _CONVERTERS and conversion is not None:
            raise _Unparsed  # CPython reports it only after looking the field up
        accessors = tuple(rest)
        if "{" in spec:
            spec = _parse(spec, numbering, positional, depth - 1)
        pieces.append((literal, (first, accessors, conversion, spec)))
    return tuple(pieces)


def _field_value(first: Any, accessors: tuple, args: tuple, kwargs: Any) -> Any:
    if isinstance(first, int):
        if first >= len(args):
            raise IndexError(f"Replacement index {first} out of range for positional args tuple")
        value = args[first]
    else:
        value = kwargs[first]
    for is_attribute, key in accessors:
        value = getattr(value, key) if is_attribute else value[key]
    return value


def str_format(pieces: tuple, *args: Any, **kwargs: Any) -> str:
    """``template.format(*args, **kwargs)``, the template given as its :func:`parse_template` pieces."""
    return format_fields(pieces, args, kwargs)


def str_format_map(pieces: tuple, mapping: Any) -> str:
    """``template.format_map(mapping)``, the template given as its pieces (names only, no positions)."""
    return format_fields(pieces, (), mapping)


def format_fields(pieces: tuple, args: tuple, kwargs: Any) -> str:
    """The text of ``pieces`` (from :func:`parse_template`) with their fields taken from ``args`` and the
    mapping ``kwargs``: what ``template.format(*args, **kwargs)`` returns."""
    out = []
    for literal, field in pieces:
        out.append(literal)
        if field is None:
            continue
        first, accessors, conversion, spec = field
        value = _field_value(first, accessors, args, kwargs)
        if conversion is not None:
            value = _CONVERTERS[conversion](value)
        if not isinstance(spec, str):
            spec = format_fields(spec, args, kwargs)
        out.append(format(value, spec))
    return "".join(out)
