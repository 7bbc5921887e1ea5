"""What ``loom.explain`` prints for guards on values loom holds itself, and what it leaves behind."""

import torch

import loom
import loom_framehook as framehook
import loom_guards

SEQ = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.ReLU())


def run_seq(x):
    return SEQ(x)


def test_guards_on_hook_dicts_print_how_the_program_reaches_them():
    text = str(loom.explain(run_seq)(torch.randn(3, 2)))
    # a module's own tables are read through its source (modules are guarded by type, not identity)
    assert "len(G['SEQ'].__dict__['_forward_hooks']) == 0" in text
    assert "len(torch.nn.modules.module._global_forward_hooks) == 0" in text
    assert "OrderedDict()" not in text


def test_a_const_source_prints_its_name_modules_and_classes_by_qualified_name():
    assert str(loom_guards.Const({}, "G['m']._forward_hooks")) == "G['m']._forward_hooks"
    assert str(loom_guards.Const(torch.nn)) == "torch.nn"
    assert str(loom_guards.Const(torch.nn.Linear)) == "torch.nn.modules.linear.Linear"
    assert str(loom_guards.Const(int)) == "int"
    table = {}
    assert loom_guards.Const(table, "a") == loom_guards.Const(table, "b")  # the name is for people only


def fib(k):
    return k if k < 2 else fib(k - 1) + fib(k - 2)


def test_explain_marks_tensor_free_code_only_for_its_run():
    report = loom.explain(fib)(10)
    assert report.result == 55
    assert framehook.strategy(fib.__code__) is None, "explain leaves no mark behind"
    assert report.counts["frames_skipped"] >= 1
