"""The C++ accelerator itself: loading rules, the program it builds, malformed programs, big programs."""

from __future__ import annotations

import os
from collections import OrderedDict

import pytest
import torch

import loom_guards
from loom_guards import (
    Attr,
    Const,
    ConstantMatch,
    DictContains,
    Identity,
    Item,
    Length,
    Local,
    ModuleParam,
    Submodule,
    TensorMatch,
    TypeMatch,
    _build,
    _cache,
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
    monkeypatch.delenv("LOOM_GUARDS_ACCEL", raising=False)

    def cannot_build():  # instead of a build for this torch into the cache (test_accel_cache.py's job)
        raise _build.BuildProblem("no build here", "none")

    monkeypatch.setattr(_cache, "load_or_build", cannot_build)
    with pytest.warns(loom_guards.AcceleratorWarning, match="no build here; the installed accelerator was built "
                      "for torch 0.0.0-other"):
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
        # C_CONSTS: hook dicts (OrderedDict), a class's namespace (read directly), another metaclass's
        Length(Const(net._forward_hooks), 0),
        Length(Const(net.a._forward_pre_hooks), 0),
        DictContains(Attr(Const(Net), "__dict__"), "missing", present=False),
        DictContains(Attr(Const(WithMeta), "__dict__"), key, present=False),
    ]
    check = loom_guards.compile(guards, f_globals=g, accelerate=True)
    ops = [op for op, _, _ in check.instructions()]
    assert ops.count("C_DICTCONTAINS") == 3 and ops.count("C_CONSTS") == 1
    passing = {"x": x, "y": x, "self": net}
    failing = {"x": torch.randn(3), "y": x, "self": net}
    raising = {"x": x, "y": x, "self": object()}
    # C_CONSTS failing (a length, a key found through getattr) and raising (a __len__, a missing __dict__)
    hooked, table = OrderedDict(a=1), WithMeta.__dict__
    const_checks = [
        loom_guards.compile([Length(Const(hooked), 0)], accelerate=True),
        loom_guards.compile([DictContains(Attr(Const(WithMeta), "__dict__"), "x", present=False)], accelerate=True),
        loom_guards.compile([Length(Const(RaisingLen()), 0)], accelerate=True),
        loom_guards.compile([DictContains(Attr(Const(key), "__dict__"), "x")], accelerate=True),
    ]
    watched = [x, net, net.a, net.a.weight, g["W"], passing, failing["x"], Net, net.__dict__, key, g["D"],
               net._forward_hooks, net.a._forward_pre_hooks, WithMeta, hooked, RaisingLen]
    for frame in (passing, failing, raising):
        check(frame)
    for c in const_checks:
        c({})
    before = [sys.getrefcount(o) for o in watched]
    for _ in range(1000):
        assert check(passing)
        assert not check(failing)
        assert not check(raising)
        assert not any(c({}) for c in const_checks)
    assert [sys.getrefcount(o) for o in watched] == before
    del table


class Meta(type):
    pass


class WithMeta(metaclass=Meta):
    x = 1


class RaisingLen:
    def __len__(self) -> int:
        raise RuntimeError("__len__ raised")


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


def test_guards_over_constants_are_one_instruction():
    net = Net()
    hooks = [Length(Const(getattr(m, name)), 0) for m in (net, net.a)
             for name in ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")]
    misses = [DictContains(Attr(Const(k), "__dict__"), "missing", present=False) for k in Net.__mro__[:-1]]
    check = loom_guards.compile([Identity(Local("self"), net), *hooks, *misses, TypeMatch(Local("x"), int)],
                                accelerate=True)
    ops = [op for op, _, _ in check.instructions()]
    # the constants are never fetched into slots: the instruction holds them
    assert ops == ["F_LOCAL", "C_ID", "F_LOCAL", "C_TYPE", "C_CONSTS"]
    assert len(check.guards) == 2 + len(hooks) + len(misses)  # the plan keeps every guard
    assert check({"self": net, "x": 1})
    net.a._forward_hooks[0] = print
    assert check.why_failed({"self": net, "x": 1}).guard == hooks[4]
    del net.a._forward_hooks[0]
    Net.missing = 1
    assert check.why_failed({"self": net, "x": 1}).guard == misses[0]
    del Net.missing
    assert check({"self": net, "x": 1})


def test_a_constant_also_read_through_keeps_its_fetch():
    d = {"k": 1}
    check = loom_guards.compile([Length(Const(d), 1), ConstantMatch(Item(Const(d), "k"), 1)], accelerate=True)
    ops = [op for op, _, _ in check.instructions()]
    assert ops == ["F_CONST", "C_CONSTS", "F_ITEM", "C_CONST"]
    assert check({})
    d["k"] = 2
    assert not check({})


@pytest.mark.parametrize(
    "ext",
    [
        None,  # not a sequence
        ["not a tuple"],
        [(0, {}, None)],  # three fields
        [(3, {}, None, 0)],  # no such kind
        [(0, {}, None, -1)],  # a negative length
        [(1, {}, "k", 2)],  # present is 0 or 1
        [(2, int, ["unhashable"], 0)],
        [("0", {}, None, 0)],
    ],
)
def test_malformed_const_checks_are_rejected(ext):
    accel = compiler._accel
    with pytest.raises((TypeError, ValueError)):
        accel.GuardProgram([(accel.OPS["C_CONSTS"], -1, -1, None, None, 0, False, ext)], 0, None, None, {}, None,
                           (False, False, False))


def test_const_checks_instruction():
    accel = compiler._accel
    d, od = {}, OrderedDict(a=1)

    def program(*entries):
        return accel.GuardProgram([(accel.OPS["C_CONSTS"], -1, -1, None, None, 0, False, entries)], 0, None, None,
                                  {}, None, (False, False, False))

    assert program()({})  # nothing to check
    check = program((0, d, None, 0), (0, od, None, 1), (1, od, "a", 1), (2, Net, "__init__", 1),
                    (2, Net, "missing", 0))
    assert check({})
    d["x"] = 1
    assert not check({})
    del d["x"]
    od["b"] = 2
    assert not check({})
    od.pop("b")
    assert check({})
    assert not program((1, od, "a", 0))({}) and not program((2, Net, "__init__", 0))({})
    assert not program((0, RaisingLen(), None, 0))({})  # raising fails


class _Settable:
    def __init__(self):
        self.a, self.b = 1, 2

    def __setattr__(self, key, value):  # like Hugging Face configs: stores through object.__setattr__
        super().__setattr__(key, value)


@pytest.mark.parametrize("cls", [Net, _Settable], ids=["plain", "custom-setattr"])
def test_an_instance_dict_item_guard_sees_an_attribute_store(cls):
    """CPython 3.13 writes ``obj.attr = v`` into the inline values that a materialised ``obj.__dict__``
    shares, without a new dict version tag: the accelerator's remembered lookup must not serve it."""
    obj = cls()
    obj.b = 3
    check = loom_guards.compile([ConstantMatch(Item(Attr(Local("o"), "__dict__"), "b"), 3)], accelerate=True)
    assert check({"o": obj}) and check({"o": obj})  # the second check may use the remembered lookup
    obj.b = 7
    assert not check({"o": obj})
    object.__setattr__(obj, "b", 3)
    assert check({"o": obj})


class _Slots4:
    def __init__(self, b):
        self.a, self.b = 1, b


def test_an_instance_dict_item_guard_reads_each_instance_of_a_class_afresh():
    """Instances of one class share their dict keys (a split table on 3.13, where the accelerator
    remembers the key's slot in those keys): every instance's own value is read, a deleted attribute
    fails, and keys added later by other instances move nothing."""
    first, second = _Slots4(3), _Slots4(4)
    vars(first), vars(second)  # materialise both dicts
    check = loom_guards.compile([ConstantMatch(Item(Attr(Local("o"), "__dict__"), "b"), 3)], accelerate=True)
    assert check({"o": first}) and check({"o": first})
    assert not check({"o": second})
    second.b = 3
    assert check({"o": second})
    third = _Slots4(3)
    third.c = third.d = 0  # grows the shared keys
    vars(third)
    assert check({"o": third}) and check({"o": first})
    del first.b
    assert not check({"o": first})
    first.b = 3
    assert check({"o": first})
    first.b = 5
    assert not check({"o": first})
