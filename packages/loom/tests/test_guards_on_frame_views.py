"""Compiled guards called by the hook with a real loom_framehook FrameView (the accelerator reads a view's
arguments, globals and builtins through framehook's C interface, not through ``f_locals``): the same
verdicts and errors as through the view's attributes, on both back ends."""

from __future__ import annotations

import pytest
import torch

import loom_framehook as fh
import loom_guards
from loom_guards import (
    Builtin,
    Closure,
    ConstantMatch,
    Global,
    Identity,
    Item,
    Length,
    Local,
    NotNone,
    TensorMatch,
)

G = 7


def make_target():
    cell = 5

    def target(x, y=2, *rest, k=3, **kw):
        return x, cell

    return target


TARGET = make_target()


def verdicts(checks, *args, **kwargs):
    """Call `TARGET(*args, **kwargs)` under a callback that runs every check on the frame's view; also
    return the (expired) view."""
    seen, views = [], []

    def cb(frame):
        if frame.f_code is TARGET.__code__:
            seen.extend(check(frame) for check in checks)
            views.append(frame)
            return None
        return fh.SKIP

    with fh.callback(cb):
        TARGET(*args, **kwargs)
    return seen, views[0]


@pytest.fixture(params=["accel", "pure"])
def build(request):
    if request.param == "accel" and not loom_guards.accelerator_available():
        pytest.fail(f"the C++ accelerator should be built here: {loom_guards.accelerator_error()}")
    accelerate = request.param == "accel"
    return lambda guards: loom_guards.compile(guards, accelerate=accelerate)


def test_arguments_of_every_kind(build):
    x = torch.zeros(2)
    checks = [
        build([TensorMatch(Local("x"), x)]),
        build([ConstantMatch(Local("y"), 2), ConstantMatch(Local("k"), 3)]),
        build([Length(Local("rest"), 1), Length(Local("kw"), 1), ConstantMatch(Item(Local("kw"), "z"), 1)]),
        build([ConstantMatch(Local("y"), 4)]),  # fails
        build([NotNone(Local("cell"))]),  # a cell variable, not an argument: no such local, fails
        build([NotNone(Local("nope"))]),  # no such name
        build([TensorMatch(Local("x"), torch.zeros(3))]),  # fails
    ]
    seen, _ = verdicts(checks, x, 2, "r", k=3, z=1)
    assert seen == [True, True, True, False, False, False, False]


def test_argument_name_equal_but_not_identical(build):
    name = "".join(["y", "y"])[:1]  # a str equal to "y", built at run time (not the interned one)
    seen, _ = verdicts([build([ConstantMatch(Local(name), 9)])], torch.zeros(1), 9)
    assert seen == [True]


def test_globals_builtins_and_closure(build):
    checks = [
        build([ConstantMatch(Global("G"), 7), Identity(Builtin("len"), len)]),
        build([ConstantMatch(Global("G"), 8)]),
        build([ConstantMatch(Closure("cell"), 5)]),
    ]
    seen, _ = verdicts(checks, torch.zeros(1))
    assert seen == [True, False, True]


def test_expired_view_raises_as_before(build):
    check = build([NotNone(Local("x"))])
    _, view = verdicts([], torch.zeros(1))
    with pytest.raises(RuntimeError, match="no longer valid"):
        check(view)
