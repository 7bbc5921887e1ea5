"""Guards recorded in this process and rebuilt in another (the point of ``to_records`` / ``from_records``):
there they pass on an equal frame and fail where the originals would; a function edited between the two
processes, or replaced in ``sys.modules``, makes the rebuild refuse."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from loom_guards import (
    Attr,
    Builtin,
    Const,
    ConstantMatch,
    DictAttr,
    DictContains,
    Global,
    GlobalState,
    Identity,
    Length,
    Local,
    ModuleParam,
    Submodule,
    TensorMatch,
    TypeMatch,
    TypeOf,
    to_records,
)

from .portable_helpers import SUBJECT, write_subject

CHILD = Path(__file__).with_name("portable_child.py")
HOOKS = ("_forward_hooks", "_forward_pre_hooks", "_backward_hooks", "_backward_pre_hooks")


def module_guards(source, module: torch.nn.Module) -> list:
    """What the translator guards for a module it inlines: its type, its forward, its hook tables empty,
    no instance attribute shadowing forward, its parameters."""
    out = [
        TypeMatch(source, type(module)),
        Identity(Attr(TypeOf(source), "forward"), type(module).forward),
        DictContains(Attr(source, "__dict__"), "forward", present=False),
        *(Length(DictAttr(source, name), 0) for name in HOOKS),
    ]
    for name, param in module._parameters.items():
        out.append(TensorMatch(ModuleParam(source, name), param))
    return out


def recorded_guards(subject) -> list:
    net = subject.Net()
    self_ = Local("self")
    return [
        *module_guards(self_, net),
        ConstantMatch(Attr(self_, "eps"), 1e-5),
        *module_guards(Submodule(self_, "lin"), net.lin),
        *(Length(Const(getattr(torch.nn.modules.module, f"_global{name}"), f"torch.nn.modules.module._global{name}"), 0)
          for name in HOOKS),
        TensorMatch(Local("x"), torch.randn(4, 3)),
        Identity(Local("c"), subject.Colour.RED),
        Identity(Global("math"), math),
        Identity(Global("helper"), subject.helper),
        ConstantMatch(Global("SCALE"), 3),
        DictContains(Const(vars(subject), "G"), "float", present=False),
        Identity(Builtin("float"), float),
        GlobalState(),
    ]


def run_child(tmp_path: Path, subject, *extra: str) -> dict:
    records, why = to_records(recorded_guards(subject))
    assert why is None, why
    path = tmp_path / "records.json"
    path.write_text(json.dumps(records))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in sys.path if p)}
    done = subprocess.run(
        [sys.executable, str(CHILD), str(path), str(tmp_path), subject.__name__, str(torch.get_num_threads()), *extra],
        capture_output=True, text=True, env=env, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


EXPECTED = {
    "equal frame": True,
    "other shape": False,
    "double": False,
    "subclass": False,
    "other enum member": False,
    "other eps": False,
    "module hook": False,
    "global hook": False,
    "global shadows a builtin": False,
    "global rebound": False,
    "no grad": False,
    "other thread count": False,
    "equal frame again": True,
}


@pytest.fixture
def subject(tmp_path):
    return write_subject(tmp_path)


def test_guards_rebuilt_in_another_process_pass_and_fail_as_they_should(tmp_path, subject):
    out = run_child(tmp_path, subject)
    assert out["why"] is None
    assert set(out["verdicts"]) == set(EXPECTED)
    for case, verdicts in out["verdicts"].items():
        assert verdicts and all(v is EXPECTED[case] for v in verdicts), (case, verdicts)
    assert out["dynamo"] is False  # rebuilding and checking guards does not import torch._dynamo


def test_a_function_edited_between_the_processes_is_refused(tmp_path, subject):
    edited = SUBJECT.replace("return x * y + SCALE", "return x * y - SCALE")
    assert edited != SUBJECT
    records, _ = to_records(recorded_guards(subject))
    (tmp_path / f"{subject.__name__}.py").write_text(edited)  # what the second process imports
    for pyc in (tmp_path / "__pycache__").glob(f"{subject.__name__}.*"):
        pyc.unlink()
    out = run_child(tmp_path, subject)
    assert out["verdicts"] == {}
    assert f"{subject.__name__}:helper" in out["why"] and "other code" in out["why"]


def test_a_function_replaced_in_the_second_process_is_refused(tmp_path, subject):
    out = run_child(tmp_path, subject, "swap")
    assert out["verdicts"] == {}
    assert f"{subject.__name__}:helper" in out["why"] and "other code" in out["why"]
