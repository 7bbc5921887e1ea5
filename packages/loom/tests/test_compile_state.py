"""A compile never changes global state: fault injection at every stage of a compile.

Each stage (translation, bytecode assembly, the backend, guard building) is made to leave something
behind (a functorch grad level, an autocast region, a dispatch mode, a fake mode, no_grad, inference
mode, a default dtype, RNG draws, a trace function, warnings filters...) and then raise. The state after
the call must equal the state before it, and eager code right after must give plain tensors and eager's
values. With the check mode on (the conftest sets ``LOOM_CHECK_STATE=1``) such a change is a
``loom.GlobalStateChanged`` naming it; with it off, the program just runs on.
"""

import contextlib
import io
import random
import sys
import threading
import warnings

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import loom
import loom_guards
import loom_symbolic
import loom_symbolic.api
from loom import global_state


class Recording(TorchDispatchMode):
    """A dispatch mode that records the ops it sees."""

    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(func)
        return func(*args, **(kwargs or {}))


_LEFT_OPEN = []  # contexts the damage entered: kept alive, as a failing compile holding them would


def _enter(context):
    context.__enter__()  # and never exit: what a compile failing mid-way through it would do
    _LEFT_OPEN.append(context)


def _fake_mode():
    from torch._subclasses.fake_tensor import FakeTensorMode

    return FakeTensorMode()


def _no_op_trace(frame, event, arg):
    return None


#: What a failing stage leaves behind: name -> (do it, the item the check mode names).
DAMAGE = {
    "grad transform": (lambda: torch._C._functorch._grad_increment_nesting(), "functorch interpreter stack"),
    "vmap transform": (lambda: torch._C._functorch._vmap_increment_nesting(3, "error"), "functorch interpreter stack"),
    "autocast": (lambda: _enter(torch.autocast("cpu", dtype=torch.bfloat16)), "autocast"),
    "dispatch mode": (lambda: _enter(Recording()), "dispatch mode stack"),
    "fake mode": (lambda: _enter(_fake_mode()), "dispatch mode stack"),
    "torch function mode": (lambda: _enter(torch.device("meta")), "torch-function mode stack"),
    "no_grad": (lambda: torch._C._set_grad_enabled(False), "grad mode"),
    "inference mode": (lambda: _enter(torch.inference_mode()), "inference mode"),
    "default dtype": (lambda: torch.set_default_dtype(torch.float64), "default dtype"),
    "torch rng": (lambda: torch.randn(3), "torch CPU random state"),
    "python rng": (lambda: random.random(), "Python random state"),
    "trace function": (lambda: sys.settrace(_no_op_trace), "sys.gettrace()"),
    "recursion limit": (lambda: sys.setrecursionlimit(sys.getrecursionlimit() + 7), "recursion limit"),
    "warnings filters": (lambda: warnings.simplefilter("ignore"), "warnings.filters"),
}


class Injected(RuntimeError):
    """The failure a test injects into a stage."""


def _failing(damage):
    def fail(*args, **kwargs):
        damage()
        raise Injected("injected failure")

    return fail


def _stage_patch(stage, damage, monkeypatch):
    """Make ``stage`` do ``damage`` and raise; returns the backend to compile with."""
    if stage == "backend":
        return _failing(damage)
    target = {"translation": (loom_symbolic, "translate"), "bytecode assembly": (loom_symbolic.api, "build_code"),
              "guards": (loom_guards, "compile")}[stage]
    monkeypatch.setattr(*target, _failing(damage))
    return "eager"


STAGES = ("translation", "bytecode assembly", "backend", "guards")


def f(x):
    return torch.sin(x) * 2 + 1


def _assert_eager_is_plain():
    product = torch.ones(2, 2) @ torch.ones(2, 2)
    assert type(product) is torch.Tensor
    assert not torch._C._functorch.is_functorch_wrapped_tensor(product)
    assert product.dtype is torch.float32 and product.device.type == "cpu"
    assert torch.equal(product, torch.full((2, 2), 2.0))
    assert torch.is_grad_enabled() and not torch.is_inference_mode_enabled()
    assert torch._C._functorch.maybe_current_level() is None


def _chain(exc):
    while exc is not None:
        yield exc
        exc = exc.__cause__ or exc.__context__


@contextlib.contextmanager
def _no_trace_left():
    previous = sys.gettrace()
    try:
        yield
    finally:
        sys.settrace(previous)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("damage", sorted(DAMAGE))
def test_check_mode_names_what_a_failing_stage_left_and_restores_it(stage, damage, monkeypatch):
    do, item_name = DAMAGE[damage]
    backend = _stage_patch(stage, do, monkeypatch)
    x = torch.randn(4)
    expected = f(x)
    before = global_state.take()
    with _no_trace_left(), pytest.raises(loom.GlobalStateChanged) as info:
        loom.compile(f, backend=backend)(x)
    assert global_state.restore(before) == []
    assert any(change.name.startswith(item_name) for change in info.value.changes), info.value
    assert any(isinstance(e, Injected) for e in _chain(info.value))  # the stage's own failure is kept
    _assert_eager_is_plain()
    assert torch.equal(f(x), expected)


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("damage", ["grad transform", "autocast", "dispatch mode", "fake mode", "no_grad",
                                    "default dtype", "torch rng"])
def test_without_the_check_the_state_is_restored_and_the_program_runs_on(stage, damage, monkeypatch):
    monkeypatch.delenv(global_state.CHECK_ENV)
    backend = _stage_patch(stage, DAMAGE[damage][0], monkeypatch)
    x = torch.randn(4)
    expected = f(x)
    torch.manual_seed(1)
    before = global_state.take()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the one warning of a frame run uncompiled
        result = loom.compile(f, backend=backend)(x)
    assert global_state.restore(before) == []
    assert torch.equal(result, expected)  # the failure is loom's, not the program's: it runs uncompiled
    _assert_eager_is_plain()
    assert torch.equal(torch.randn(2), torch.manual_seed(1) and torch.randn(2))


def _program_states():
    return {
        "autocast": lambda: torch.autocast("cpu", dtype=torch.bfloat16),
        "dispatch mode": Recording,
        "no_grad": torch.no_grad,
        "grad transform": lambda: torch._functorch.eager_transforms.grad_increment_nesting(),
        "default device": lambda: torch.device("cpu"),
    }


@pytest.mark.parametrize("stage", STAGES)
@pytest.mark.parametrize("state", sorted(_program_states()))
def test_a_compile_failing_inside_the_programs_own_state_leaves_that_state(stage, state, monkeypatch):
    """The program is inside autocast, a dispatch mode, no_grad, a grad transform level... when the compile
    fails: after the call it is still there, exactly, and the function gave eager's value."""
    backend = _stage_patch(stage, lambda: None, monkeypatch)
    x = torch.randn(4)
    with _program_states()[state]():
        expected = f(x)
        before = global_state.take()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = loom.compile(f, backend=backend)(x)
        assert global_state.restore(before) == []
        assert torch.equal(result, expected)
    _assert_eager_is_plain()


def test_the_snapshot_costs_microseconds_and_sees_nothing_on_a_clean_compile():
    before = global_state.take()
    assert torch.equal(loom.compile(f, backend="eager")(torch.ones(3)), f(torch.ones(3)))
    assert global_state.restore(before) == []


def test_another_threads_random_draws_during_a_compile_are_not_rewound():
    """RNG states are process-wide: while other Python threads live, a compile leaves them alone (writing
    one back would hand the next draw the numbers another thread already got)."""
    go, done, drawn = threading.Event(), threading.Event(), []

    def other_thread():
        go.wait(10)
        drawn.append(torch.randn(4))
        done.set()

    def backend(gm, example_inputs):
        go.set()  # the other thread draws while this one compiles
        done.wait(10)
        return gm.forward

    worker = threading.Thread(target=other_thread)
    worker.start()
    x = torch.randn(4)
    assert torch.equal(loom.compile(f, backend=backend)(x), f(x))  # no GlobalStateChanged: not loom's change
    worker.join()
    assert len(drawn) == 1 and not torch.equal(torch.randn(4), drawn[0])


def test_tqdms_monitor_thread_does_not_turn_the_process_wide_checks_off(monkeypatch):
    """Every AOTAutograd compile makes a (disabled) tqdm bar, whose monitor thread then lives for good; it
    runs no program code, so the RNG and default-dtype checks must stay on after it started."""
    tqdm = pytest.importorskip("tqdm")
    with tqdm.tqdm(total=1, disable=False, file=io.StringIO()) as bar:
        bar.update(1)
    if not any(type(t).__name__ == "TMonitor" for t in threading.enumerate()):
        pytest.skip("this tqdm started no monitor thread")
    backend = _stage_patch("translation", DAMAGE["torch rng"][0], monkeypatch)
    with pytest.raises(loom.GlobalStateChanged, match="torch"):
        loom.compile(f, backend=backend)(torch.randn(4))


def test_a_filter_a_module_adds_when_a_compile_first_imports_it_stays(tmp_path, monkeypatch):
    """A module a compile imports for the first time may add a warnings filter for its own category (sympy
    does, when the first translation imports torch's symbolic_shapes): that is the module's, not a change
    the compile made, so it is neither flagged nor taken away. A filter on any other category still is."""
    (tmp_path / "loom_fresh_warning_module.py").write_text(
        "import warnings\n\n\nclass FreshWarning(Warning):\n    pass\n\n\n"
        "warnings.simplefilter('once', FreshWarning)\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    translate = loom_symbolic.translate

    def importing_translate(*args, **kwargs):
        import loom_fresh_warning_module  # noqa: F401 - imported for its filter

        return translate(*args, **kwargs)

    monkeypatch.setattr(loom_symbolic, "translate", importing_translate)
    with warnings.catch_warnings():
        x = torch.randn(4)
        assert torch.equal(loom.compile(f, backend="eager")(x), f(x))
        fresh = sys.modules["loom_fresh_warning_module"].FreshWarning
        assert any(entry[2] is fresh for entry in warnings.filters)
    del sys.modules["loom_fresh_warning_module"]
