"""Traced code sees the program's state, not loom's: queries of the dispatch-mode stack and of
functorch's level answer as in eager (never with loom's fake mode), and a program's own dispatch mode
never sees loom's compile-time work."""

import pytest
import torch
from torch.overrides import TorchFunctionMode
from torch.utils._python_dispatch import (
    TorchDispatchMode,
    _get_current_dispatch_mode,
    _get_current_dispatch_mode_stack,
    is_in_torch_dispatch_mode,
)

import loom
import loom_framehook as framehook


def mode_stack_depth(x):
    return x * (len(_get_current_dispatch_mode_stack()) + 1)


def top_mode(x):
    return x + (0 if _get_current_dispatch_mode() is None else 7)


def fake_mode_set(x):
    return x + (0 if torch._C._get_dispatch_mode(torch._C._TorchDispatchModeKey.FAKE) is None else 50)


def in_dispatch_mode(x):
    return x + (100 if is_in_torch_dispatch_mode() else 1)


def functorch_level(x):
    return x + (0 if torch._C._functorch.maybe_current_level() is None else 3)


@pytest.mark.parametrize("fn", [mode_stack_depth, top_mode, fake_mode_set, in_dispatch_mode, functorch_level])
@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_a_query_of_the_program_state_is_answered_as_eager_would(fn, backend):
    x = torch.randn(3)
    report = loom.explain(fn, backend=backend)(x)
    assert (report.graph_count, report.break_count) == (1, 0), str(report)
    assert torch.equal(report.result, fn(x))
    assert torch.equal(loom.compile(fn, backend=backend)(x), fn(x))


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_multihead_attention_fast_path_check_sees_no_fake_mode(backend):
    """Under no_grad in eval, nn.MultiheadAttention asks whether make_fx is tracing (it reads the
    dispatch-mode stack): issue 29's "an op returning LoomFakeTensorMode"."""
    mha = torch.nn.MultiheadAttention(8, 2, batch_first=True).eval()
    x = torch.randn(2, 5, 8)

    def attend(q):
        return mha(q, q, q, need_weights=False)[0]

    with torch.no_grad():
        expected = attend(x)
        report = loom.explain(attend, backend=backend)(x)
        assert (report.graph_count, report.break_count) == (1, 0), str(report)
        assert torch.allclose(report.result, expected, atol=1e-6)
        assert torch.allclose(loom.compile(attend, backend=backend)(x), expected, atol=1e-6)


class Recording(TorchDispatchMode):
    """Records the type of every op's first argument."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        self.seen.append((func, type(args[0]).__name__ if args else None))
        return func(*args, **(kwargs or {}))


def body(x):
    return torch.sin(x) * 2


def test_a_programs_dispatch_mode_sees_eagers_ops_and_never_loom_compiling():
    x = torch.randn(3)
    with Recording() as eager_mode:
        expected = body(x)
    compiled = loom.compile(body, backend="aot_eager")
    with Recording() as mode:
        result = compiled(x)
    assert torch.equal(result, expected)
    assert mode.seen == eager_mode.seen  # no FakeTensor, no AOTAutograd tracing: the frame ran as it is
    assert torch.equal(compiled(x), expected)  # outside the mode it compiles
    assert len(framehook.entries(body.__code__)) == 1
    with Recording() as mode:
        result = compiled(x)  # the entry's guard sees the mode: run as it is
    assert torch.equal(result, expected)
    assert mode.seen == eager_mode.seen


class RecordingFunctions(TorchFunctionMode):
    """Records the torch functions called."""

    def __init__(self):
        super().__init__()
        self.seen = []

    def __torch_function__(self, func, types, args=(), kwargs=None):
        self.seen.append((getattr(func, "__name__", repr(func)), [type(a).__name__ for a in args]))
        return func(*args, **(kwargs or {}))


def test_a_programs_torch_function_mode_sees_eagers_calls_only():
    x = torch.randn(3)
    with RecordingFunctions() as eager_mode:
        expected = body(x)
    compiled = loom.compile(body, backend="aot_eager")
    with RecordingFunctions() as mode:
        result = compiled(x)
    assert torch.equal(result, expected)
    assert mode.seen == eager_mode.seen  # no FakeTensor, nothing of loom's tracing
    assert framehook.entries(body.__code__) == []  # run as it is


def test_a_default_device_context_is_compiled_under():
    x = torch.randn(3)

    def fill(x):
        return x + torch.ones(3)

    with torch.device("cpu"):
        assert torch.equal(loom.compile(fill, backend="eager")(x), x + 1)
    assert len(framehook.entries(fill.__code__)) == 1
