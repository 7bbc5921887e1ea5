"""The C++ accelerator itself: loading rules, the program it builds, malformed programs, big programs."""

from __future__ import annotations

import os

import pytest
import torch

import loom_guards
from loom_guards import (
    Attr,
    ConstantMatch,
    DictContains,
    Local,
    ModuleParam,
    Submodule,
    TensorMatch,
    TypeMatch,
    compiler,
)

pytestmark = pytest.mark.skipif(
    not loom_guards.accelerator_available() and os.environ.get("LOOM_GUARDS_ALLOW_NO_ACCEL") == "1",
    reason="accelerator unavailable and allowed to be",
)


def test_accelerator_is_built_for_this_torch():
    assert loom_guards.accelerator_available(), loom_guards.accelerator_error()
    assert loom_guards.accelerator_error() is None
    assert compiler._accel.TORCH_VERSION == torch.__version__


def test_a_mismatched_build_is_never_used(monkeypatch):
    accel = compiler._accel
    monkeypatch.setattr(accel, "TORCH_VERSION", "0.0.0-other")
    monkeypatch.setattr(compiler, "_accel", None)
    with pytest.warns(RuntimeWarning, match="built for torch 0.0.0-other"):
        compiler._load_accel()
    try:
        assert not loom_guards.accelerator_available()
        assert "built for torch 0.0.0-other" in loom_guards.accelerator_error()
        assert not loom_guards.compile([TypeMatch(Local("x"), int)]).accelerated
        with pytest.raises(RuntimeError, match="accelerate=True"):
            loom_guards.compile([TypeMatch(Local("x"), int)], accelerate=True)
    finally:
        monkeypatch.undo()
        compiler._accel_error = None
    assert loom_guards.accelerator_available()


class Net(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.a = torch.nn.Linear(2, 2)


def test_module_tables_are_read_once():
    net = Net()
    child = Submodule(Local("self"), "a")
    check = loom_guards.compile(
        [TensorMatch(ModuleParam(child, "weight"), net.a.weight), TensorMatch(ModuleParam(child, "bias"), net.a.bias)],
        accelerate=True,
    )
    ops = [op for op, _, _ in check.instructions()]
    assert ops.count("F_DICTATTR") == 2  # self._modules once, a._parameters once
    assert ops.count("F_ITEM") == 3  # 'a', 'weight', 'bias'
    assert check({"self": net})


def test_big_programs():
    names = [f"a{i}" for i in range(300)]
    guards = [ConstantMatch(Local(n), i) for i, n in enumerate(names)]
    frame = {n: i for i, n in enumerate(names)}
    check = loom_guards.compile(guards, accelerate=True)
    assert check(frame)
    frame["a299"] = -1
    assert not check(frame)
    assert check.why_failed(frame) == "L['a299'] == 299, got -1"


@pytest.mark.parametrize(
    "instructions",
    [
        [(999, 0, -1, "x", None, 0, False, None)],
        [(0, 5, -1, "x", None, 0, False, None)],
        [(0, -1, -1, "x", None, 0, False, None)],
        ["not a tuple"],
        [(0, 0)],
    ],
)
def test_malformed_programs_are_rejected(instructions):
    accel = compiler._accel
    with pytest.raises((TypeError, ValueError)):
        accel.GuardProgram(instructions, 1, None, None, {}, None, (False, False, False))


def test_check_needs_a_source_slot():
    accel = compiler._accel
    with pytest.raises(ValueError):
        accel.GuardProgram([(accel.OPS["C_NONE"], -1, -1, None, None, 0, False, None)], 1, None, None, {}, None,
                           (False, False, False))


def test_weak_instruction_needs_a_weakref():
    accel = compiler._accel
    with pytest.raises(TypeError):
        accel.GuardProgram([(accel.OPS["C_TYPE"], -1, 0, int, None, 0, True, None)], 1, None, None, {}, None,
                           (False, False, False))


def test_calls_need_one_argument():
    check = loom_guards.compile([TypeMatch(Local("x"), int)], accelerate=True)
    with pytest.raises(TypeError):
        check({"x": 1}, {"x": 1})
    with pytest.raises(TypeError):
        check(frame={"x": 1})


def test_no_reference_leaks():
    import sys

    net = Net()
    x = torch.randn(2, 2)
    key = ("k", 2**70)  # a key object of its own, to watch
    g = {"W": (1, 2), "D": {("k", 2**70): 0}}
    guards = [
        TensorMatch(Local("x"), x),
        TensorMatch(ModuleParam(Submodule(Local("self"), "a"), "weight"), net.a.weight),
        ConstantMatch(loom_guards.Item(loom_guards.Global("W"), 1), 2),
        loom_guards.GlobalState(),
        loom_guards.SameObject(Local("x"), Local("y")),
        DictContains(Attr(Local("self"), "__dict__"), "forward", present=False),  # an exact dict
        DictContains(Attr(loom_guards.TypeOf(Local("self")), "__dict__"), "__init__"),  # a mappingproxy
        DictContains(loom_guards.Global("D"), key),
    ]
    check = loom_guards.compile(guards, f_globals=g, accelerate=True)
    assert [op for op, _, _ in check.instructions()].count("C_DICTCONTAINS") == 3
    passing = {"x": x, "y": x, "self": net}
    failing = {"x": torch.randn(3), "y": x, "self": net}
    raising = {"x": x, "y": x, "self": object()}
    watched = [x, net, net.a, net.a.weight, g["W"], passing, failing["x"], Net, net.__dict__, key, g["D"]]
    for frame in (passing, failing, raising):
        check(frame)
    before = [sys.getrefcount(o) for o in watched]
    for _ in range(1000):
        assert check(passing)
        assert not check(failing)
        assert not check(raising)
    assert [sys.getrefcount(o) for o in watched] == before


def test_programs_reading_unwritten_slots_are_rejected():
    accel = compiler._accel
    ops = accel.OPS
    needs = (False, False, False)
    with pytest.raises(ValueError, match="reads a slot"):
        accel.GuardProgram([(ops["F_ATTR"], 1, 0, "a", None, 0, False, None)], 2, None, None, {}, None, needs)
    with pytest.raises(ValueError, match="reads a slot"):
        accel.GuardProgram([(ops["C_NOALIAS"], -1, -1, None, None, 0, False, (0, 1))], 2, None, None, {}, None, needs)
    with pytest.raises(ValueError, match="writes a slot twice"):
        accel.GuardProgram([(ops["F_LOCAL"], 0, -1, "x", None, 0, False, None)] * 2, 1, None, None, {}, None, needs)
    ok = accel.GuardProgram([(ops["F_LOCAL"], 0, -1, "x", None, 0, False, None),
                             (ops["C_NOTNONE"], -1, 0, None, None, 0, False, None)], 1, None, None, {}, None, needs)
    assert ok({"x": 1}) and not ok({"x": None}) and not ok({})


def test_same_object_compares_two_slots():
    accel = compiler._accel
    ops = accel.OPS
    needs = (False, False, False)
    fetch = [(ops["F_LOCAL"], 0, -1, "a", None, 0, False, None), (ops["F_LOCAL"], 1, -1, "b", None, 0, False, None)]
    for slots in [(0,), (0, 1, 1)]:
        with pytest.raises(ValueError, match="two slots"):
            accel.GuardProgram([*fetch, (ops["C_SAME"], -1, -1, None, None, 0, False, slots)], 2, None, None, {},
                               None, needs)
    same = accel.GuardProgram([*fetch, (ops["C_SAME"], -1, -1, None, None, 0, False, (0, 1))], 2, None, None, {},
                              None, needs)
    x = object()
    assert same({"a": x, "b": x}) and not same({"a": x, "b": object()}) and not same({"a": x})


def test_dict_contains_instruction():
    accel = compiler._accel
    ops = accel.OPS
    needs = (False, False, False)
    fetch = (ops["F_LOCAL"], 0, -1, "d", None, 0, False, None)

    def program(key, n, src=0):
        return accel.GuardProgram([fetch, (ops["C_DICTCONTAINS"], -1, src, key, None, n, False, None)], 1, None,
                                  None, {}, None, needs)

    with pytest.raises(ValueError, match="present"):
        program("a", 2)
    with pytest.raises(ValueError, match="source slot"):
        program("a", 1, src=-1)
    with pytest.raises(TypeError, match="unhashable"):
        program(["a"], 1)
    present, absent, none_key = program("a", 1), program("a", 0), program(None, 1)
    assert present({"d": {"a": 1}}) and not present({"d": {}}) and not present({"d": ["a"]})
    assert absent({"d": {}}) and not absent({"d": {"a": 1}}) and not absent({"d": None}) and not absent({})
    assert none_key({"d": {None: 1}}) and not none_key({"d": {}})


def test_dict_contains_is_lowered_to_its_instruction():
    src = Attr(Local("m"), "__dict__")
    check = loom_guards.compile([DictContains(src, "forward", present=False), DictContains(src, "w")],
                                accelerate=True)
    ops = [op for op, _, _ in check.instructions()]
    assert ops == ["F_LOCAL", "F_ATTR", "C_DICTCONTAINS", "C_DICTCONTAINS"]  # one read of the dict
    assert "C_PY" not in ops
