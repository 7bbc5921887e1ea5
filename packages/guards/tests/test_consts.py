"""Guards over constants: ``Length(Const(d), n)`` (a module's hook dicts, guarded empty),
``DictContains(Const(d), key)`` and ``DictContains(Attr(Const(cls), "__dict__"), key)`` (a name absent from a
class). They read nothing from the frame, only the constants' current state; the accelerator fuses them
into one ``C_CONSTS`` instruction, the pure back end checks them one by one. Both must agree, and
``why_failed`` must name the very guard that failed."""

from __future__ import annotations

import gc
import weakref
from collections import OrderedDict, defaultdict

import pytest
import torch

import loom_guards
from loom_guards import Attr, Const, ConstantMatch, DictContains, Identity, Item, Length, Local, TypeMatch

HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def hook_guards(module: torch.nn.Module) -> list[Length]:
    """What loom-symbolic guards for a module it inlines: its hook dicts stay empty."""
    return [Length(Const(getattr(module, name)), 0) for name in HOOK_DICTS]


def absent(cls: type, name: str) -> DictContains:
    return DictContains(Attr(Const(cls), "__dict__"), name, present=False)


def agree(guards, frame=None):
    """(passes, why_failed) on both back ends (or the pure one alone without the accelerator), which must
    agree with each other and with themselves."""
    frame = {} if frame is None else frame
    seen = []
    for accel in (True, False) if loom_guards.accelerator_available() else (False,):
        check = loom_guards.compile(guards, accelerate=accel)
        ok, why = check(frame), check.why_failed(frame)
        assert type(ok) is bool and ok == (why is None), (accel, ok, why)
        seen.append((ok, None if why is None else (why.guard, str(why))))
    assert all(s == seen[0] for s in seen), seen
    return check(frame), check.why_failed(frame)


# -- lengths ------------------------------------------------------------------------------------------


def test_a_hook_registered_later_fails_the_check(build):
    m = torch.nn.Linear(2, 2)
    guards = [Identity(Local("m"), m), *hook_guards(m)]
    check = build(guards)
    assert check({"m": m})
    handle = m.register_forward_pre_hook(lambda mod, args: None)
    assert check({"m": m}) is False
    why = check.why_failed({"m": m})
    assert why.guard == guards[2] and why.seen == "1"  # the forward pre-hooks, exactly
    assert str(why).startswith("len(OrderedDict(") and str(why).endswith(") == 0, got 1")
    handle.remove()
    assert check({"m": m})
    handle = m.register_full_backward_hook(lambda mod, gi, go: None)
    assert check.why_failed({"m": m}).guard == guards[3]
    handle.remove()
    assert check({"m": m})


def test_global_hook_dicts():
    from torch.nn.modules import module as module_mod

    tables = [module_mod._global_forward_hooks, module_mod._global_forward_pre_hooks]
    guards = [Length(Const(t), len(t)) for t in tables]
    assert agree(guards) == (True, None)
    handle = torch.nn.modules.module.register_module_forward_hook(lambda mod, args, out: None)
    try:
        ok, why = agree(guards)
        assert not ok and why.guard == guards[0]
    finally:
        handle.remove()
    assert agree(guards) == (True, None)


def test_the_failing_member_is_named():
    tables = [OrderedDict() for _ in range(5)]
    guards = [Length(Const(t), 0) for t in tables]
    assert agree(guards) == (True, None)
    tables[3]["k"] = 1
    ok, why = agree(guards)
    assert not ok and why.guard is guards[3] and why.seen == "1"
    tables[1]["a"] = tables[1]["b"] = 2  # two fail: the first in check order is reported
    ok, why = agree(guards)
    assert why.guard is guards[1] and why.seen == "2"
    tables[1].clear(), tables[3].clear()
    assert agree(guards) == (True, None)


class LenSeven(dict):
    def __len__(self) -> int:
        return 7


class PlainOrdered(OrderedDict):
    """An OrderedDict subclass without its own __len__: len() is the dict's count."""


class RaisingLen:
    def __len__(self) -> int:
        raise RuntimeError("__len__ raised")


class Interrupting:
    def __len__(self) -> int:
        raise KeyboardInterrupt


@pytest.mark.parametrize(
    "value",
    [
        {}, {"a": 1}, OrderedDict(), OrderedDict(a=1, b=2), PlainOrdered(a=1), defaultdict(int, a=1),
        LenSeven(a=1), [], [1, 2], (1,), "abc", b"", range(4), {1, 2}, RaisingLen(), object(), None, 3,
    ],
    ids=lambda v: type(v).__name__,
)
def test_lengths_of_any_constant(value):
    try:
        expected = len(value)
    except Exception:
        expected = None
    for n in (0, 1, 2, 7):
        ok, why = agree([Length(Const(value), n)])
        assert ok is (expected == n)
        if expected is None:
            assert "checking raised" in str(why)
        elif not ok:
            assert why.seen == str(expected)


def test_a_class_that_gains_a_len_later():
    class Table(dict):
        pass

    t = Table(a=1)
    guards = [Length(Const(t), 1)]
    assert agree(guards) == (True, None)
    Table.__len__ = lambda self: 5  # CPython updates the type's length slots
    ok, why = agree(guards)
    assert not ok and why.seen == "5"
    del Table.__len__
    assert agree(guards) == (True, None)
    t["b"] = 2
    assert agree(guards)[1].seen == "2"


def test_base_exceptions_from_len_propagate(build):
    check = build([Length(Const(Interrupting()), 0)])
    with pytest.raises(KeyboardInterrupt):
        check({})


# -- names absent from a class, keys of a constant dict -----------------------------------------------


class Base:
    pass


class Child(Base):
    def f(self) -> int:
        return 1


def test_a_name_later_defined_on_a_class_fails_the_check():
    guards = [absent(Child, "missing"), absent(Base, "missing"),
              DictContains(Attr(Const(Child), "__dict__"), "f")]
    assert agree(guards) == (True, None)
    Base.missing = 1
    try:
        ok, why = agree(guards)
        assert not ok and why.guard is guards[1]
        assert str(why) == f"'missing' not in {Base.__module__}.{Base.__qualname__}.__dict__, got the key"
    finally:
        del Base.missing
    assert agree(guards) == (True, None)
    f = Child.f
    del Child.f
    try:
        ok, why = agree(guards)
        assert not ok and why.guard is guards[2] and why.seen == "no such key"
    finally:
        Child.f = f
    assert agree(guards) == (True, None)


class Meta(type):
    pass


class WithMeta(metaclass=Meta):
    x = 1


class DictMeta(type):
    @property
    def __dict__(cls):  # what getattr(cls, "__dict__") returns for its classes
        return {"fake": 1}


class WithDictMeta(metaclass=DictMeta):
    x = 1


class Instance:
    def __init__(self) -> None:
        self.w = 1


@pytest.mark.parametrize(
    ("obj", "key", "found"),
    [
        (Child, "f", True),
        (Child, "missing", False),
        (Base, "f", False),  # a class's own namespace, not its MRO
        (torch.nn.Linear, "forward", True),
        (torch.nn.Linear, "__call__", False),
        (int, "__add__", True),  # a builtin class
        (torch.Tensor, "dim", False),
        (WithMeta, "x", True),  # another metaclass: through getattr
        (WithMeta, "y", False),
        (WithDictMeta, "x", False),  # a metaclass's own __dict__ is what getattr finds
        (WithDictMeta, "fake", True),
        (Instance(), "w", True),  # not a class: the instance dict
        (Instance(), "f", False),
    ],
)
def test_class_dicts(obj, key, found):
    assert agree([DictContains(Attr(Const(obj), "__dict__"), key)])[0] is found
    assert agree([DictContains(Attr(Const(obj), "__dict__"), key, present=False)])[0] is not found


def test_class_dict_of_an_object_without_one():
    for value in (3, None, object()):
        ok, why = agree([absent(value, "x")])
        assert not ok and "raised AttributeError" in str(why)


def test_keys_of_a_constant_dict():
    d = {"a": 1}
    guards = [DictContains(Const(d), "a"), DictContains(Const(d), "b", present=False)]
    assert agree(guards) == (True, None)
    d["b"] = 2
    ok, why = agree(guards)
    assert not ok and why.guard is guards[1]
    del d["a"], d["b"]
    assert agree(guards)[1].guard is guards[0]
    for mapping, key in [(OrderedDict(a=1), "a"), (defaultdict(int, a=1), "a"), (torch.nn.Linear.__dict__, "forward")]:
        assert agree([DictContains(Const(mapping), key)]) == (True, None)
        assert not agree([DictContains(Const(mapping), "zzz")])[0]
    assert not agree([DictContains(Const(["a"]), "a")])[0]  # not a mapping


# -- mixed with the frame's guards ----------------------------------------------------------------------


def test_mixed_with_frame_guards(build):
    net = torch.nn.Sequential(torch.nn.Linear(2, 2))
    d = {"k": 1}
    guards = [
        Identity(Local("m"), net),
        *hook_guards(net),
        *hook_guards(net[0]),
        absent(torch.nn.Sequential, "missing"),
        Length(Const(d), 1),
        ConstantMatch(Item(Const(d), "k"), 1),  # a constant's item: an ordinary read
        TypeMatch(Local("x"), int),
    ]
    check = build(guards)
    frame = {"m": net, "x": 1}
    assert check(frame)
    assert check.why_failed({"m": net, "x": 1.0}).guard == guards[-1]
    d["k"] = 2
    assert check.why_failed(frame).guard == guards[-2]
    d["k"] = 1
    handle = net[0].register_forward_hook(lambda *a: None)
    assert check(frame) is False and check.why_failed(frame).guard == guards[5]
    handle.remove()
    assert check(frame)


def test_const_guards_keep_their_order():
    tables = [OrderedDict() for _ in range(3)]
    guards = [Length(Const(t), 0) for t in tables]
    check = loom_guards.compile(guards)
    assert list(check.guards) == guards


def test_a_program_over_constants_is_collected():
    class Table(dict):
        pass

    t = Table()
    check = loom_guards.compile([Length(Const(t), 1)], accelerate=loom_guards.accelerator_available())
    t["check"] = check  # a cycle through the program's constants
    assert check({})
    ref = weakref.ref(t)
    del t, check
    gc.collect()
    assert ref() is None
