"""``Length(DictAttr(m, name), 0)``: a module's own hook dicts, guarded empty through the module's source
(modules are guarded by type, so each call may bring another instance). The accelerator fuses the checks
of one module into a single ``C_EMPTYATTRS`` instruction that reads its instance dict once and remembers
the entries against the dict's version tag; the pure back end checks them one by one. Both must agree
whatever the module, its dict or its tables do between calls, and ``why_failed`` must name the guard."""

from __future__ import annotations

from collections import OrderedDict

import pytest
import torch

import loom_guards
from loom_guards import DictAttr, Length, Local, TypeMatch

HOOK_DICTS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def module_guards(name: str, module: torch.nn.Module) -> list:
    """What loom-symbolic guards for a module it inlines: its type and its empty hook dicts."""
    return [TypeMatch(Local(name), type(module)),
            *(Length(DictAttr(Local(name), table), 0) for table in HOOK_DICTS)]


def both(guards):
    backends = (True, False) if loom_guards.accelerator_available() else (False,)
    return [loom_guards.compile(guards, accelerate=accel) for accel in backends]


def verdicts(checks, frame):
    seen = {(c(frame), None if c.why_failed(frame) is None else str(c.why_failed(frame))) for c in checks}
    assert len(seen) == 1, seen  # the back ends agree
    return seen.pop()


@pytest.mark.skipif(not loom_guards.accelerator_available(), reason="needs the C++ accelerator")
def test_one_instruction_per_module_and_the_table_fetches_are_left_out():
    a, b = torch.nn.Linear(2, 2), torch.nn.ReLU()
    check = loom_guards.compile(module_guards("a", a) + module_guards("b", b), accelerate=True)
    ops = [op for op, _, _ in check.instructions()]
    assert ops.count("C_EMPTYATTRS") == 2 and "F_DICTATTR" not in ops and "C_LEN" not in ops
    assert check({"a": a, "b": b})


def test_a_hook_registered_later_fails_on_the_same_and_on_another_instance():
    a, b = torch.nn.Linear(2, 2), torch.nn.Linear(2, 2)
    checks = both(module_guards("m", a))
    for _ in range(3):  # the accelerator remembers the entries of a's dict after the first pass
        assert verdicts(checks, {"m": a}) == (True, None)
        assert verdicts(checks, {"m": b}) == (True, None)
    for table, register in (("_forward_hooks", "register_forward_hook"),
                            ("_forward_pre_hooks", "register_forward_pre_hook")):
        handle = getattr(a, register)(lambda *args: None)
        ok, why = verdicts(checks, {"m": a})
        assert not ok and f"len(L['m'].__dict__['{table}']) == 0, got 1" == why
        assert verdicts(checks, {"m": b}) == (True, None)
        handle.remove()
        assert verdicts(checks, {"m": a}) == (True, None)
    b.register_full_backward_hook(lambda *args: None)
    assert not verdicts(checks, {"m": b})[0]


def test_a_replaced_or_removed_table_is_read_again():
    m = torch.nn.Linear(2, 2)
    checks = both(module_guards("m", m))
    assert verdicts(checks, {"m": m})[0]
    m._forward_hooks = OrderedDict(k=print)  # the module's dict changes: its tables are looked up again
    assert not verdicts(checks, {"m": m})[0]
    m._forward_hooks = OrderedDict()
    assert verdicts(checks, {"m": m})[0]
    m._forward_hooks = []  # not a dict: len() of it, still empty
    assert verdicts(checks, {"m": m})[0]
    m._forward_hooks = [1]
    assert not verdicts(checks, {"m": m})[0]
    del m.__dict__["_forward_hooks"]  # missing: the guard cannot decide, so it fails
    assert not verdicts(checks, {"m": m})[0]


def test_a_table_with_its_own_len_and_an_object_without_a_dict():
    class Counted(OrderedDict):
        size = 0

        def __len__(self):
            return self.size

    m = torch.nn.Linear(2, 2)
    m._forward_hooks = Counted()
    checks = both([Length(DictAttr(Local("m"), name), 0) for name in HOOK_DICTS])
    assert verdicts(checks, {"m": m})[0]
    Counted.size = 1  # no change to any dict: a remembered answer would be stale
    assert not verdicts(checks, {"m": m})[0]
    Counted.size = 0
    assert verdicts(checks, {"m": m})[0]
    assert not verdicts(checks, {"m": 3})[0]  # an int has no __dict__
