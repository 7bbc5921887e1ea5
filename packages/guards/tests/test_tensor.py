"""TensorMatch: each property it checks, dynamic dimensions, tensor subclasses and in-place changes."""

from __future__ import annotations

import pytest
import torch

from loom_guards import Local, TensorMatch, simplify

X = Local("x")


def verdict(check, value):
    frame = {"x": value}
    ok = check(frame)
    why = check.why_failed(frame)
    assert type(ok) is bool
    assert ok == (why is None), (ok, why)
    return ok, why


@pytest.fixture
def x():
    return torch.randn(8, 4)


def test_passes_on_its_example_and_equal_tensors(build, x):
    check = build([TensorMatch(X, x)])
    assert verdict(check, x) == (True, None)
    assert verdict(check, torch.zeros(8, 4)) == (True, None)


@pytest.mark.parametrize(
    ("make", "why"),
    [
        (lambda x: torch.randn(16, 4), "L['x'].shape[0] == 8, got 16"),
        (lambda x: torch.randn(8, 5), "L['x'].shape[1] == 4, got 5"),
        (lambda x: torch.randn(8, 4, 1), "L['x'].dim() == 2, got 3"),
        (lambda x: torch.randn(32), "L['x'].dim() == 2, got 1"),
        (lambda x: torch.randn(4, 8).t(), "L['x'].stride()[0] == 4, got 1"),
        (lambda x: torch.randn(8, 8)[:, :4], "L['x'].stride()[0] == 4, got 8"),
        (lambda x: x.double(), "L['x'].dtype == torch.float32, got torch.float64"),
        (lambda x: x.to(torch.int64), "L['x'].dtype == torch.float32, got torch.int64"),
        (lambda x: x.clone().requires_grad_(), "L['x'].requires_grad == False, got True"),
        (lambda x: x.to("meta"), "L['x'].device == cpu, got meta"),
        (lambda x: torch.nn.Parameter(x.clone(), requires_grad=False), "type(L['x']) is torch.Tensor, got torch.nn.Parameter"),
        (lambda x: x.numpy(), "type(L['x']) is torch.Tensor, got numpy.ndarray"),
        (lambda x: [1, 2], "type(L['x']) is torch.Tensor, got list"),
        (lambda x: None, "type(L['x']) is torch.Tensor, got NoneType"),
    ],
)
def test_fails_each_way(build, x, make, why):
    check = build([TensorMatch(X, x)])
    assert verdict(check, make(x)) == (False, why)


def test_dispatch_keys_inference_tensor(build, x):
    check = build([TensorMatch(X, x)])
    with torch.inference_mode():
        inf = torch.randn(8, 4)
    ok, why = verdict(check, inf)
    assert not ok
    assert why.startswith("L['x'] dispatch keys == DispatchKeySet(CPU, ADInplaceOrView, AutogradCPU")
    assert why.endswith("got DispatchKeySet(CPU, AutocastCPU)")


def test_dispatch_keys_conjugate_and_negative_views(build):
    z = torch.randn(3, dtype=torch.complex64)
    check = build([TensorMatch(X, z)])
    assert verdict(check, z.clone())[0]
    ok, why = verdict(check, z.conj())
    assert not ok and "Conjugate" in why
    y = torch.randn(3)
    check = build([TensorMatch(X, y)])
    ok, why = verdict(check, torch._neg_view(y))
    assert not ok and "Negative" in why


def test_sparse_tensor(build):
    s = torch.randn(3, 3).to_sparse()
    check = build([TensorMatch(X, s)])
    assert TensorMatch(X, s).strides is None  # sparse tensors have no strides
    assert verdict(check, torch.randn(3, 3).to_sparse())[0]
    ok, why = verdict(check, torch.randn(3, 3))
    assert not ok and "dispatch keys" in why


def test_parameter_example(build):
    p = torch.nn.Parameter(torch.randn(4, 4))
    check = build([TensorMatch(X, p)])
    assert verdict(check, torch.nn.Parameter(torch.randn(4, 4)))[0]
    _ok, why = verdict(check, torch.randn(4, 4, requires_grad=True))
    assert why == "type(L['x']) is torch.nn.Parameter, got torch.Tensor"


def test_zero_dim_and_empty(build):
    check = build([TensorMatch(X, torch.tensor(3.0))])
    assert verdict(check, torch.tensor(4.0))[0]
    assert verdict(check, torch.randn(1)) == (False, "L['x'].dim() == 0, got 1")
    check = build([TensorMatch(X, torch.empty(0, 3))])
    assert verdict(check, torch.empty(0, 3))[0]
    assert not verdict(check, torch.empty(1, 3))[0]


def test_dynamic_dims(build, x):
    g = TensorMatch(X, x, dynamic_dims=[0])
    assert g.sizes == (None, 4)
    assert g.strides == (4, 1)  # stride 0 is the size of dim 1: still static
    check = build([g])
    assert verdict(check, torch.randn(16, 4))[0]
    assert verdict(check, torch.randn(1, 4))[0]
    assert verdict(check, torch.randn(16, 5)) == (False, "L['x'].shape[1] == 4, got 5")
    assert "shape=(?, 4)" in g.describe()

    g = TensorMatch(X, x, dynamic_dims=[-1])
    assert g.sizes == (8, None)
    assert g.strides == (None, 1)  # stride 0 depends on the dynamic size of dim 1
    check = build([g])
    assert verdict(check, torch.randn(8, 9))[0]
    assert verdict(check, torch.randn(9, 9)) == (False, "L['x'].shape[0] == 8, got 9")
    assert not verdict(check, torch.randn(9, 8).t()[:8])[0]  # stride()[1] != 1


def test_dynamic_dims_channels_last():
    t = torch.randn(2, 3, 4, 5).to(memory_format=torch.channels_last)  # strides (60, 1, 15, 3)
    g = TensorMatch(X, t, dynamic_dims=[1])
    # channels are innermost: every stride but their own is a multiple of the channel count
    assert g.strides == (None, 1, None, None)
    g = TensorMatch(X, t, dynamic_dims=[0])
    assert g.strides == (60, 1, 15, 3)


def test_explicit_sizes_and_strides(build, x):
    check = build([TensorMatch(X, x, sizes=[None, 4], strides=None)])
    assert verdict(check, torch.randn(3, 4).t().contiguous().t())[0]  # any strides
    assert TensorMatch(X, x, strides=[None, 1]).strides == (None, 1)
    with pytest.raises(ValueError):
        TensorMatch(X, x, sizes=[8])
    with pytest.raises(ValueError):
        TensorMatch(X, x, strides=[1, 2, 3])
    with pytest.raises(ValueError):
        TensorMatch(X, x, dynamic_dims=[2])
    with pytest.raises(TypeError):
        TensorMatch(X, x, dynamic_dims=["0"])
    with pytest.raises(TypeError):
        TensorMatch(X, [1, 2])
    with pytest.raises(TypeError):
        TensorMatch("x", x)


def test_in_place_metadata_changes_are_seen(build):
    x = torch.randn(8, 4)
    check = build([TensorMatch(X, x)])
    frame = {"x": x}
    assert check(frame)
    x.t_()
    assert check.why_failed(frame) == "L['x'].shape[0] == 8, got 4"
    assert not check(frame)
    x.t_()
    assert check(frame)
    x.requires_grad_()
    assert not check(frame)
    x.requires_grad_(False)
    x.resize_(2, 16)
    assert not check(frame)
    x.data = torch.randn(8, 4, dtype=torch.float64)
    assert check.why_failed(frame) == "L['x'].dtype == torch.float32, got torch.float64"
    assert not check(frame)
    x.data = torch.randn(8, 4)
    assert check(frame)


def test_merging_dynamic_and_static_checks_what_either_checks(x):
    (merged,) = simplify([TensorMatch(X, x, dynamic_dims=[0]), TensorMatch(X, x, dynamic_dims=[1])])
    assert merged.sizes == (8, 4)
    (merged,) = simplify([TensorMatch(X, x, dynamic_dims=[0]), TensorMatch(X, x, dynamic_dims=[0])])
    assert merged.sizes == (None, 4)
    with pytest.raises(ValueError, match="contradictory"):
        simplify([TensorMatch(X, x), TensorMatch(X, torch.randn(2, 2))])


# -- tensor subclasses --------------------------------------------------------------------------------


class Tagged(torch.Tensor):
    """A subclass with a __torch_function__ that counts calls."""

    calls = 0

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        Tagged.calls += 1
        return super().__torch_function__(func, types, args, kwargs or {})


class Liar(torch.Tensor):
    """A subclass whose Python-level metadata lies and whose __torch_function__ raises."""

    @property
    def dtype(self):
        return torch.float32

    @property
    def shape(self):
        return torch.Size([8, 4])

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        raise RuntimeError("hostile __torch_function__")


def test_subclass_example(build):
    t = torch.randn(8, 4).as_subclass(Tagged)
    check = build([TensorMatch(X, t)])
    assert verdict(check, torch.randn(8, 4).as_subclass(Tagged))[0]
    assert verdict(check, torch.randn(8, 4)) == (False, f"type(L['x']) is {__name__}.Tagged, got torch.Tensor")
    _ok, why = verdict(check, torch.randn(7, 4).as_subclass(Tagged))
    assert why == "L['x'].shape[0] == 8, got 7"


def test_subclass_where_a_tensor_was_expected(build, x):
    check = build([TensorMatch(X, x)])
    _ok, why = verdict(check, torch.randn(8, 4).as_subclass(Tagged))
    assert why == f"type(L['x']) is torch.Tensor, got {__name__}.Tagged"


def test_lying_subclass_is_checked_on_its_real_metadata(build):
    liar = torch.randn(8, 4, dtype=torch.float64).as_subclass(Liar)
    check = build([TensorMatch(X, torch.randn(8, 4).as_subclass(Liar))])
    # it claims float32 and (8, 4); the real tensor is float64: never a wrong True, never an exception
    assert verdict(check, liar) == (False, "L['x'].dtype == torch.float32, got torch.float64")
    honest = torch.randn(2, 2).as_subclass(Liar)
    assert verdict(check, honest) == (False, "L['x'].shape[0] == 8, got 2")
    assert verdict(check, torch.randn(8, 4).as_subclass(Liar))[0]


def test_checks_run_no_torch_function_handler(build):
    t = torch.randn(8, 4).as_subclass(Tagged)
    check = build([TensorMatch(X, t)])
    Tagged.calls = 0
    for _ in range(3):
        assert check({"x": t})
    assert Tagged.calls == 0
