"""``loom.portable_code``: rewritten code written for another process, its non-marshal constants by name."""

from __future__ import annotations

import enum
import json
import types

import pytest
import torch

from loom.portable_code import NotPortable, dump_code, load_code


class Colour(enum.Enum):
    RED = 1


def _with_constants(*values):
    """A code object that returns its constants as a tuple, nested in another code object, with ``values``
    among the constants of both."""
    outer = compile("def inner():\n    return 0\n", "<test>", "exec")
    inner = next(c for c in outer.co_consts if isinstance(c, types.CodeType))
    inner = inner.replace(co_consts=(*inner.co_consts, *values))
    consts = tuple(inner if isinstance(c, types.CodeType) else c for c in outer.co_consts)
    return outer.replace(co_consts=(*consts, *values))


def test_named_objects_come_back_as_the_very_objects():
    values = (type, object.__new__, torch.float16, Colour.RED, torch.nn.Linear)
    code = _with_constants(*values)
    data, named = dump_code(code)
    named = json.loads(json.dumps(named))
    assert len(named) == 2 * len(values)  # in the outer code and in the nested one
    again = load_code(data, named)
    assert again == code
    inner = next(c for c in again.co_consts if isinstance(c, types.CodeType))
    for value in values:
        assert any(c is value for c in again.co_consts) and any(c is value for c in inner.co_consts)


def test_code_with_only_marshal_constants_names_nothing():
    code = _with_constants(1, "a", (2.5, None))
    data, named = dump_code(code)
    assert named == [] and load_code(data, named) == code


def test_a_constant_no_name_carries_is_refused():
    with pytest.raises(NotPortable):
        dump_code(_with_constants(torch.zeros(2)))
    with pytest.raises(NotPortable):
        dump_code(_with_constants(object()))


def test_a_description_naming_nothing_here_is_refused():
    data, named = dump_code(_with_constants(type))
    named[0][1] = {"t": "class", "module": "builtins", "path": "no_such_class", "mro": []}
    with pytest.raises(NotPortable):
        load_code(data, named)


@pytest.mark.parametrize("place", [[99], [], ["x"], [0, 5]])
def test_a_malformed_place_is_refused(place):
    data, named = dump_code(_with_constants(type))
    named[0][0] = place
    with pytest.raises(NotPortable):
        load_code(data, named)
