"""A NaN as a member of a container: CPython compares members identity first, so the guards let a NaN member
match only the same object (``member_eq``), on both back ends."""

import math

from loom_guards import ConstantMatch, DictKeys, Local

X = Local("x")


def verdict(check, value):
    """(passed, why) of ``check`` on ``{"x": value}``."""
    return check({"x": value}), check.why_failed({"x": value})


def test_a_nan_member_matches_only_the_same_object(build):
    """CPython compares a container's members identity first, so which NaN object a tuple, set or dict key
    holds decides ``in`` and ``==``; a NaN on its own matches any NaN (its identity decides nothing there)."""
    other = float("nan")
    for expected, same, different in [
        ((math.nan, 1), (math.nan, 1), (other, 1)),
        (((1, complex(0, math.nan)),), None, ((1, complex(0, math.nan)),)),
        (frozenset({math.nan, 2}), frozenset({2, math.nan}), frozenset({other, 2})),
    ]:
        check = build([ConstantMatch(X, expected)])
        if same is not None:
            assert verdict(check, same) == (True, None)
        assert verdict(check, different)[0] is False
        assert (math.nan in expected) == (math.nan in (same or expected))
    member = complex(0, math.nan)
    assert verdict(build([ConstantMatch(X, (1, member))]), (1, member)) == (True, None)
    assert verdict(build([ConstantMatch(X, math.nan)]), other) == (True, None)
    keys = build([DictKeys(X, [math.nan, "a"])])
    assert verdict(keys, {math.nan: 1, "a": 2}) == (True, None)
    assert verdict(keys, {other: 1, "a": 2})[0] is False
