"""``tensor._version`` read in the trace: eager's count of in-place changes, whatever the backend does to the real
counter (AOTAutograd's functional graph bumps a mutated input once, however many in-place ops it had)."""

from __future__ import annotations

import pytest
import torch

import loom

BACKENDS = ["eager", "aot_eager", "c"]


def _made_in_frame(x):
    t = x.clone()
    before = t._version
    t.mul_(2)
    t.add_(1)
    return t, t._version - before


def _input_and_its_views(x):
    v = x._version
    x.add_(1)
    w = x[1:]
    w.mul_(2)
    return x._version, v, w._version, x.detach()._version, x.data._version


def _out_and_set(x):
    t = torch.empty(3)
    torch.add(x, 1, out=t)
    x.data = x.clone()  # .data= leaves the counter alone
    return t._version, x._version


def _branch_on_version(x):
    if x._version > 3:
        return x + 1
    return x - 1


def _bumped_versions(calls):
    """The argument of each call, bumped ``i`` times before it: its version is ``i`` on entry."""
    for i in range(calls):
        x = torch.arange(3.0)
        for _ in range(i):
            x.add_(0)
        yield x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [_made_in_frame, _input_and_its_views, _out_and_set])
def test_versions_count_eager_s_in_place_ops(backend, fn):
    loom.reset()
    compiled = loom.compile(fn, backend=backend, options={"strict": True})
    for x, x_eager in zip(_bumped_versions(4), _bumped_versions(4)):
        got, expected = compiled(x), fn(x_eager)
        assert [int(v) if not isinstance(v, torch.Tensor) else v.tolist() for v in got] == \
               [int(v) if not isinstance(v, torch.Tensor) else v.tolist() for v in expected]
    assert loom.stats()["graphs"] == 1  # the entry version is read at each call, never guarded
    report = loom.explain(fn)(torch.arange(3.0))
    assert (report.graph_count, report.graph_break_count) == (1, 0)


def test_a_decision_on_the_version_is_guarded_not_broken():
    loom.reset()
    compiled = loom.compile(_branch_on_version, backend="eager", options={"strict": True})
    for x, x_eager in zip(_bumped_versions(6), _bumped_versions(6)):
        torch.testing.assert_close(compiled(x), _branch_on_version(x_eager))
    assert loom.stats()["graphs"] == 2  # one entry per side of `> 3`
    assert loom.stats()["graph_breaks"] == 0


def test_inputs_sharing_storage_break_with_a_reason():
    def f(x, y):
        y.add_(1)
        return x._version, y._version

    base = torch.arange(3.0)
    report = loom.explain(f)(base, base[1:])
    assert report.graph_break_count == 1
    assert report.breaks[0].what == "tensor attribute '_version'"
    assert "shares its storage" in report.breaks[0].why
    loom.reset()
    base, base_eager = torch.arange(3.0), torch.arange(3.0)
    assert loom.compile(f, backend="eager")(base, base[1:]) == f(base_eager, base_eager[1:])


def test_an_inference_tensor_raises_as_in_eager():
    def f(x):
        with torch.inference_mode():
            t = torch.ones(2)
        return x + 1, t._version

    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        f(torch.arange(3.0))
    loom.reset()
    with pytest.raises(RuntimeError, match="Inference tensors do not track version counter"):
        loom.compile(f, backend="eager")(torch.arange(3.0))
