"""Sets and frozensets of constants read from the frame's globals: the guard compares their members
type-strictly, so a set holding ``True`` or ``1.0`` where the traced one held ``1`` recompiles instead of
being served the entry traced for ``{1}`` (``{1} == {True} == {1.0}`` in Python)."""

from __future__ import annotations

import pytest
import torch

import loom

MEMBERS: object = None


def member_type(x):
    for v in MEMBERS:
        return x + 1, type(v).__name__, v


def nested_member_type(x):
    inner = MEMBERS[1]
    return x + 1, [type(v).__name__ for v in inner]


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
@pytest.mark.parametrize(
    "first, then",
    [
        ({1}, [{True}, {1.0}, {1}]),
        (frozenset({0.0}), [frozenset({-0.0}), frozenset({0.0})]),
        (frozenset({"a"}), [frozenset({b"a"}), frozenset({"a"})]),
    ],
    ids=["set-int-bool-float", "frozenset-zero-signs", "frozenset-str-bytes"],
)
def test_a_set_of_equal_members_of_another_type_recompiles(monkeypatch, backend, first, then):
    loom.reset()
    compiled = loom.compile(member_type, backend=backend)
    x = torch.zeros(2)
    for value in [first, *then]:
        monkeypatch.setitem(globals(), "MEMBERS", value)
        got, expected = compiled(x), member_type(x)
        assert torch.equal(got[0], expected[0])
        assert got[1:] == expected[1:] and repr(got[2]) == repr(expected[2])


def test_a_frozenset_inside_a_tuple_is_compared_type_strictly(monkeypatch):
    loom.reset()
    compiled = loom.compile(nested_member_type, backend="eager")
    x = torch.zeros(2)
    for value in [(0, frozenset({1})), (0, frozenset({True})), (0, frozenset({1}))]:
        monkeypatch.setitem(globals(), "MEMBERS", value)
        assert compiled(x)[1] == nested_member_type(x)[1]
