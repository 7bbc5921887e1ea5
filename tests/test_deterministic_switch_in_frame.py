"""``torch.use_deterministic_algorithms(...)`` inside a compiled function: no graph break (torch.compile takes it
in its graph); the flags are set when the frame ends, as eager leaves them, and the queries of the flags later
in the frame answer what the program set. It broke the graph at every call ("changes global state")."""

import pytest
import torch

import loom


@pytest.fixture(autouse=True)
def _restore_flags():
    before = (torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled())
    yield
    torch.use_deterministic_algorithms(before[0], warn_only=before[1])


def _switch_and_read(x):
    torch.use_deterministic_algorithms(True, warn_only=True)
    y = x + 1
    inside = torch.are_deterministic_algorithms_enabled(), torch.is_deterministic_algorithms_warn_only_enabled()
    return y * 2, inside


def _switch_twice(x):
    torch.use_deterministic_algorithms(True)
    y = x.sin()
    torch.use_deterministic_algorithms(False)
    return y, torch.are_deterministic_algorithms_enabled()


@pytest.mark.parametrize("backend", ["eager", "aot_eager"])
def test_switch_is_one_graph_and_outlives_the_frame(backend):
    torch.use_deterministic_algorithms(False)
    x = torch.arange(3.0)
    loom.reset()
    compiled = loom.compile(_switch_and_read, backend=backend)
    for _ in range(2):
        torch.use_deterministic_algorithms(False)
        y, inside = compiled(x)
        assert torch.equal(y, (x + 1) * 2) and inside == (True, True)
        assert torch.are_deterministic_algorithms_enabled() and torch.is_deterministic_algorithms_warn_only_enabled()
    report = loom.explain(_switch_and_read)(x)
    assert report.graph_count == 1 and report.break_count == 0


def test_switched_back_in_the_same_frame():
    torch.use_deterministic_algorithms(False)
    x = torch.arange(3.0)
    loom.reset()
    report = loom.explain(_switch_twice)(x)
    assert torch.equal(report.result[0], x.sin()) and report.result[1] is False
    assert not torch.are_deterministic_algorithms_enabled()
    assert report.graph_count == 1 and report.break_count == 0
