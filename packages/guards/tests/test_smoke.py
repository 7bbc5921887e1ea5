import torch

from loom_guards import ConstantMatch, GlobalState, Local, TensorMatch


def test_tensor_and_constant(build):
    x = torch.randn(8, 4)
    check = build([TensorMatch(Local("x"), x), ConstantMatch(Local("n"), 3), GlobalState()])
    assert check({"x": torch.randn(8, 4), "n": 3}) is True
    assert check({"x": torch.randn(16, 4), "n": 3}) is False
    assert check.why_failed({"x": torch.randn(16, 4), "n": 3}) == "L['x'].shape[0] == 8, got 16"
    assert check.why_failed({"x": x, "n": 3}) is None
