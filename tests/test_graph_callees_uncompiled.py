"""Frames that a compiled graph's ops call (a custom op's Python body, a TorchDispatchMode's
``__torch_dispatch__``) run uncompiled, and the hook is back on for the program's frames afterwards."""

import inspect
import warnings

import pytest
import torch
from torch.utils._python_dispatch import TorchDispatchMode

import loom
import loom_framehook

BODY_CALLS = []


def doubled_body(x: torch.Tensor) -> torch.Tensor:
    BODY_CALLS.append(1)
    return x * 2


doubled = torch.library.custom_op("loom_callee_tests::doubled", doubled_body, mutates_args=())


@doubled.register_fake
def _(x):
    return torch.empty_like(x)


@torch.library.custom_op("loom_callee_tests::failing", mutates_args=())
def failing(x: torch.Tensor) -> torch.Tensor:
    raise ValueError("the op's body failed")


@failing.register_fake
def _(x):
    return torch.empty_like(x)


@pytest.fixture(autouse=True)
def fresh():
    loom.reset()
    BODY_CALLS.clear()
    yield
    loom.reset()


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_custom_ops_body_is_not_a_graph_of_its_own(backend):
    def fn(x):
        return doubled(x.sin()) + 1

    x = torch.randn(4)
    report = loom.explain(fn)(x)
    assert report.graph_count == 1 and report.break_count == 0, report
    compiled = loom.compile(fn, backend=backend)
    torch.testing.assert_close(compiled(x), fn(x))
    assert BODY_CALLS and not loom_framehook.entries(doubled_body.__code__)


class Recorder(TorchDispatchMode):
    def __init__(self):
        super().__init__()
        self.ops = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.ops.append(str(func))
        names = [type(a).__name__ for a in args]  # a comprehension: a frame of its own on 3.11
        assert names is not None
        return func(*args, **(kwargs or {}))


@pytest.mark.parametrize("backend", ["eager", "c"])
def test_a_dispatch_mode_around_a_compiled_call_sees_every_op_and_is_not_compiled(backend):
    model = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.ReLU(), torch.nn.Linear(4, 2))
    compiled = loom.compile(model, backend=backend)
    x = torch.randn(3, 4)
    compiled(x)
    with Recorder() as eager_mode:
        expected = model(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for _ in range(3):
            with Recorder() as mode:
                out = compiled(x)
    torch.testing.assert_close(out, expected)
    assert mode.ops == eager_mode.ops and "aten.addmm.default" in mode.ops
    assert not loom_framehook.entries(inspect.unwrap(Recorder.__dict__["__torch_dispatch__"]).__code__)


def test_the_hook_is_back_on_after_a_graph_and_after_an_exception_in_it():
    def later(x):
        return x.cos() + 1

    def fn(x):
        return doubled(x) - 1

    def raising(x):
        return failing(x) - 1

    x = torch.randn(4)
    compiled = loom.compile(fn, backend="eager")
    compiled(x)
    compiled_later = loom.compile(later, backend="eager")
    compiled_later(x)
    assert loom_framehook.entries(later.__code__)
    with pytest.raises(ValueError, match="body failed"):
        loom.compile(raising, backend="eager")(x)

    def after(x):
        return x.tan() * 3

    loom.compile(after, backend="eager")(x)
    assert loom_framehook.entries(after.__code__)
    assert BODY_CALLS and not loom_framehook.entries(doubled_body.__code__)
