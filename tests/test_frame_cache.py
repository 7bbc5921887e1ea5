"""The frame cache: a second process runs a compiled frame from disk, without translating it.

Each test runs small programs in fresh processes over one temporary ``LOOM_CACHE_DIR`` (the suite's
conftest turns the cache off for every other test) and reads what they print as JSON.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

pytest.importorskip("loom_backends")

PROGRAM = textwrap.dedent(
    """
    import json, sys
    import torch
    import loom
    from loom import frame_cache
    from loom_backends import c_toolchain
    sys.path.insert(0, {folder!r})
    import user_model

    torch.manual_seed(0)
    model = user_model.Model()
    x = torch.randn({rows}, 64)
    compiled = loom.compile(model, backend={backend})
    result = {{}}
    if {train}:
        model.train()
        out = compiled(x)
        out.sum().backward()
        grads = [p.grad.clone() for p in model.parameters()]
        model.zero_grad()
        model(x).sum().backward()
        result["grads_match"] = all(torch.allclose(a, p.grad, rtol=1e-4, atol=1e-5)
                                    for a, p in zip(grads, model.parameters()))
    else:
        model.eval()
        with torch.no_grad():
            out = compiled(x)
        result["grads_match"] = True
    with torch.no_grad():
        result["matches"] = torch.allclose(out, model(x), rtol=1e-5, atol=1e-6)
    result["dynamo_imported"] = "torch._dynamo" in sys.modules
    result["sympy_imported"] = "sympy" in sys.modules
    result["compiler_runs"] = c_toolchain.compiler_invocations()
    result["cache"] = frame_cache.stats()
    result["stats"] = loom.stats()
    print(json.dumps(result))
    """
)

MODEL = textwrap.dedent(
    """
    import torch
    from torch import nn


    def activation(x):
        return torch.nn.functional.gelu(x) * {scale}


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(64, 32)
            self.norm = nn.LayerNorm(32)

        def forward(self, x):
            return activation(self.norm(self.fc(x))) + 1.0
    """
)


def _write_model(folder: Path, scale: float = 2.0) -> None:
    path = folder / "user_model.py"
    path.write_text(MODEL.format(scale=scale))
    # A second write within one clock tick would keep the modification time: move it on explicitly.
    stamp = path.stat().st_mtime_ns + int(scale * 1e9)
    os.utime(path, ns=(stamp, stamp))


def _run(folder: Path, cache: Path, *, rows: int = 8, train: bool = False, backend: str = "'c'",
         env: dict[str, str] | None = None) -> dict:
    script = PROGRAM.format(folder=str(folder), rows=rows, train=train, backend=backend)
    environment = {**os.environ, "LOOM_CACHE_DIR": str(cache), "LOOM_FRAME_CACHE": "1", **(env or {})}
    environment.pop("LOOM_GRAPH_CACHE", None)
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=environment,
                          timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def workspace(tmp_path: Path) -> tuple[Path, Path]:
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    _write_model(folder)
    return folder, cache


def test_a_second_process_serves_the_inference_frame_without_translating(workspace):
    folder, cache = workspace
    first = _run(folder, cache)
    assert first["matches"] and first["cache"]["stored"] == 1 and first["cache"]["hits"] == 0
    second = _run(folder, cache)
    assert second["matches"]
    assert second["cache"]["hits"] == 1
    assert second["stats"]["frames_from_disk"] == 1 and second["stats"]["graphs"] == 1
    assert not second["dynamo_imported"]  # no FakeTensorMode was made: nothing was translated
    assert not second["sympy_imported"]  # nor lowered: the C graphs came from the graph cache
    assert second["compiler_runs"] == 0


def test_a_second_process_serves_the_training_frame_with_its_backward(workspace):
    folder, cache = workspace
    first = _run(folder, cache, train=True)
    assert first["matches"] and first["grads_match"] and first["cache"]["stored"] == 1
    second = _run(folder, cache, train=True)
    assert second["matches"] and second["grads_match"]
    assert second["cache"]["hits"] == 1 and not second["dynamo_imported"] and not second["sympy_imported"]


def test_an_edited_helper_is_translated_again(workspace):
    folder, cache = workspace
    assert _run(folder, cache)["cache"]["stored"] == 1
    _write_model(folder, scale=3.0)  # the inlined helper's file changed: the kept translation is stale
    second = _run(folder, cache)
    assert second["matches"]  # the answer is the edited program's
    assert second["cache"]["hits"] == 0 and second["cache"]["stored"] == 1


def test_failing_guards_translate_again(workspace):
    folder, cache = workspace
    _run(folder, cache, rows=8)
    second = _run(folder, cache, rows=5)  # another input shape: the kept entry's guards fail
    assert second["matches"] and second["cache"]["hits"] == 0 and second["cache"]["stored"] == 1
    third = _run(folder, cache, rows=5)
    assert third["matches"] and third["cache"]["hits"] == 1


def test_turned_off_it_stores_nothing(workspace):
    folder, cache = workspace
    _run(folder, cache, env={"LOOM_FRAME_CACHE": "0"})
    second = _run(folder, cache, env={"LOOM_FRAME_CACHE": "0"})
    assert second["cache"] == {"hits": 0, "misses": 0, "stored": 0, "bypassed": 0, "ignored": 0}
    assert not (cache / "frames").exists()


def test_a_callable_backend_is_never_kept(workspace):
    folder, cache = workspace
    backend = "lambda gm, inputs: gm.forward"
    first = _run(folder, cache, backend=backend)
    assert first["matches"] and first["cache"]["stored"] == 0
    assert not (cache / "frames").exists()


def test_a_corrupt_entry_is_ignored(workspace):
    folder, cache = workspace
    _run(folder, cache)
    for entry in (cache / "frames").rglob("*.json"):
        entry.write_text("{not json")
    second = _run(folder, cache)
    assert second["matches"] and second["cache"]["hits"] == 0 and second["cache"]["ignored"] == 1


OTHER_GLOBALS = textwrap.dedent(
    """
    import json, sys, types
    import torch
    import loom
    from loom import frame_cache
    sys.path.insert(0, {folder!r})
    import user_model

    fn = user_model.activation
    if {other}:  # the same code with a globals dict of its own: guards kept on the module's dict do not apply
        fn = types.FunctionType(fn.__code__, dict(vars(user_model)))
    torch.manual_seed(0)  # unseeded, 1 run in ~10 drew an x near -5, where float32 GELU's 1 + erf cancels past atol
    x = torch.randn(8, 64)
    out = loom.compile(fn, backend="c")(x)
    print(json.dumps({{"matches": torch.allclose(out, user_model.activation(x), atol=1e-5), "cache": frame_cache.stats()}}))
    """
)


def test_a_function_with_other_globals_is_not_served(workspace):
    folder, cache = workspace
    environment = {**os.environ, "LOOM_CACHE_DIR": str(cache), "LOOM_FRAME_CACHE": "1"}
    environment.pop("LOOM_GRAPH_CACHE", None)

    def run(other: bool) -> dict:
        done = subprocess.run([sys.executable, "-c", OTHER_GLOBALS.format(folder=str(folder), other=other)],
                              capture_output=True, text=True, env=environment, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    assert run(False)["cache"]["stored"] == 1
    other = run(True)
    assert other["matches"] and other["cache"]["hits"] == 0, other
    assert run(False)["cache"]["hits"] == 1


DECORATED_MODEL = textwrap.dedent(
    """
    import dataclasses
    import functools
    import os

    import torch
    from torch import nn


    @dataclasses.dataclass
    class Output:  # its __init__ is code dataclasses makes by exec: from no file
        value: torch.Tensor
        scale: float = 1.0


    def scaled(factor):
        def decorate(forward):
            @functools.wraps(forward)  # the name Model.forward reaches this wrapper, a closure
            def wrapped(self, x):
                if x is None:  # never taken: it keeps the wrapper in its own closure, as transformers' do
                    return wrapped(self, x)
                out = forward(self, x)
                return Output(out.value * factor, factor)

            return wrapped

        return decorate


    class Model(nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = nn.Linear(64, 32)

        @scaled(float(os.environ["USER_FACTOR"]))
        def forward(self, x):
            return Output(torch.relu(self.fc(x)))
    """
)

DECORATED_PROGRAM = textwrap.dedent(
    """
    import json, sys
    import torch
    import loom
    from loom import frame_cache
    sys.path.insert(0, {folder!r})
    import user_decorated

    torch.manual_seed(0)
    model = user_decorated.Model()
    x = torch.randn(8, 64)
    with torch.no_grad():
        out = loom.compile(model, backend="c")(x)
        want = model(x)
    print(json.dumps({{"matches": torch.allclose(out.value, want.value, atol=1e-6),
                       "factor": out.value.sum().item() / want.value.sum().item(),
                       "cache": frame_cache.stats()}}))
    """
)


def test_a_decorated_forward_returning_a_dataclass_is_served_and_its_closure_compared(tmp_path):
    folder, cache = tmp_path / "src", tmp_path / "cache"
    folder.mkdir()
    (folder / "user_decorated.py").write_text(DECORATED_MODEL)

    def run(factor: str) -> dict:
        environment = {**os.environ, "LOOM_CACHE_DIR": str(cache), "LOOM_FRAME_CACHE": "1", "USER_FACTOR": factor}
        environment.pop("LOOM_GRAPH_CACHE", None)
        done = subprocess.run([sys.executable, "-c", DECORATED_PROGRAM.format(folder=str(folder))],
                              capture_output=True, text=True, env=environment, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = run("2.0")
    assert first["matches"] and first["cache"]["stored"] == 1
    second = run("2.0")
    assert second["matches"] and second["cache"]["hits"] == 1
    # The same files, another value in the wrapper's closure: the kept translation does not apply.
    third = run("3.0")
    assert third["matches"] and third["cache"]["hits"] == 0


BOTH_MODES = textwrap.dedent(
    """
    import json, sys
    import torch
    import loom
    from loom import frame_cache
    sys.path.insert(0, {folder!r})
    import user_model

    torch.manual_seed(0)
    model = user_model.Model()
    compiled = loom.compile(model, backend="c")
    x = torch.randn(8, 64)
    matches = []
    for mode in {modes!r}:  # one frame, two guard sets: no_grad inference, then a training step (or the reverse)
        if mode == "infer":
            with torch.no_grad():
                out, want = compiled(x), model(x)
        else:
            out, want = compiled(x), model(x)
            out.sum().backward()
        matches.append(torch.allclose(out, want, rtol=1e-5, atol=1e-6))
    print(json.dumps({{"matches": all(matches), "cache": frame_cache.stats()}}))
    """
)


def test_both_entries_of_a_frame_are_served_in_either_order(workspace):
    """An entry whose guards fail on the first call (the training one, at the inference call) is checked again
    at the recompile: whichever order the entries' names sort in, and whichever call comes first."""
    folder, cache = workspace
    environment = {**os.environ, "LOOM_CACHE_DIR": str(cache), "LOOM_FRAME_CACHE": "1"}
    environment.pop("LOOM_GRAPH_CACHE", None)

    def run(modes: list[str]) -> dict:
        done = subprocess.run([sys.executable, "-c", BOTH_MODES.format(folder=str(folder), modes=modes)],
                              capture_output=True, text=True, env=environment, timeout=300)
        assert done.returncode == 0, done.stderr[-3000:]
        return json.loads(done.stdout.strip().splitlines()[-1])

    first = run(["infer", "train"])
    assert first["matches"] and first["cache"]["stored"] == 2
    for modes in (["infer", "train"], ["train", "infer"]):
        again = run(modes)
        assert again["matches"] and again["cache"]["hits"] == 2 and again["cache"]["stored"] == 0, (modes, again)
