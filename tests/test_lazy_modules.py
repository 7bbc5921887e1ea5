"""The first call of a lazy module inside the compiled function (issue 29): the parameters are made as in
eager (same shapes, same initial values from torch's RNG, the module becomes its ``cls_to_become``), with
no break; where the graph drew from the RNG before the call it breaks rather than reorder the draws."""

from __future__ import annotations

import torch
from torch import nn
from torch.nn.modules.lazy import LazyModuleMixin

import loom


def _call(x, m):
    return m(x).relu(), m.weight.shape


def _outcome(fn):
    torch.manual_seed(0)
    m = nn.LazyLinear(2)
    result = fn(torch.arange(3.0), m)
    return result, m, torch.get_rng_state()


def test_a_lazy_linear_first_called_in_the_frame_is_made_as_in_eager():
    want, want_m, want_rng = _outcome(_call)
    loom.reset()
    got, m, rng = _outcome(loom.compile(_call, backend="eager"))
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1] == (2, 3) and type(m) is type(want_m) is nn.Linear
    torch.testing.assert_close(m.weight, want_m.weight)
    assert torch.equal(rng, want_rng)
    assert loom.stats()["graph_breaks"] == 0
    torch.testing.assert_close(loom.compile(_call, backend="eager")(torch.ones(3), m)[0], _call(torch.ones(3), m)[0])


def _noise_first(x, m):
    return m(x + torch.randn(3))


def test_a_lazy_module_after_a_random_op_breaks_and_draws_in_eagers_order():
    want, want_m, want_rng = _outcome(_noise_first)
    loom.reset()
    compiled = loom.compile(_noise_first, backend="eager")
    got, m, rng = _outcome(compiled)
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(m.weight, want_m.weight)
    assert torch.equal(rng, want_rng)
    torch.manual_seed(0)
    report = str(loom.explain(_noise_first)(torch.arange(3.0), nn.LazyLinear(2)))
    assert "lazy module LazyLinear" in report and "RNG" in report, report


class _TwoLazy(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.LazyLinear(4)
        self.fc2 = nn.LazyLinear(2)

    def forward(self, x):
        return self.fc2(self.fc1(x).relu())


def test_two_lazy_modules_in_one_trace_draw_one_after_the_other():
    torch.manual_seed(0)
    want_m = _TwoLazy()
    want = want_m(torch.arange(3.0))
    want_rng = torch.get_rng_state()
    loom.reset()
    torch.manual_seed(0)
    m = _TwoLazy()
    got = loom.compile(m, backend="eager")(torch.arange(3.0))
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(m.fc2.weight, want_m.fc2.weight)
    assert torch.equal(torch.get_rng_state(), want_rng)
    assert loom.stats()["graph_breaks"] == 0


class _LazyOffset(LazyModuleMixin, nn.Module):
    def initialize_parameters(self, x):
        self.offset = nn.Parameter(torch.ones(x.shape[-1]) * 0.5)

    def forward(self, x):
        return x.cos() + self.offset


def _call_offset(x, m):
    return m(x) * 2


def test_a_lazy_module_that_makes_its_parameters_in_initialize_parameters():
    # it had no uninitialized parameter, so the translator saw only torch's hook and broke
    want = _call_offset(torch.arange(3.0), _LazyOffset())
    loom.reset()
    m = _LazyOffset()
    got = loom.compile(_call_offset, backend="eager")(torch.arange(3.0), m)
    torch.testing.assert_close(got, want)
    assert type(m) is _LazyOffset and list(dict(m.named_parameters())) == ["offset"]
    assert loom.stats()["graph_breaks"] == 0


def _reads_uninitialized(x, p):
    return x + 1, type(p).__name__


def test_an_uninitialized_parameter_argument_is_no_internal_error():
    # the dynamic policy read its shape (RuntimeError: an internal error, the frame ran uncompiled)
    loom.reset()
    p = nn.LazyLinear(2).weight
    got = loom.compile(_reads_uninitialized, backend="eager", options={"strict": True})(torch.arange(3.0), p)
    torch.testing.assert_close(got[0], torch.arange(3.0) + 1)
    assert got[1] == "UninitializedParameter"


class _FirstAndSecond(nn.Module):
    def __init__(self):
        super().__init__()
        self.first = nn.LazyLinear(4)
        self.second = nn.LazyLinear(1)

    def forward(self, inp):
        return self.second(self.first(inp).relu()).relu()


def _two_lazy_call(x, model):
    return model(x.reshape(1, 3) + 1) * 3


def test_an_abandoned_trace_that_made_a_lazy_module_still_moves_the_rng():
    """With dynamic sizes the second module's input is symbolic, a break the trace meets after the first module
    was made: that module stays made, and the trace made again with the break moves torch's RNG past its
    values, so the second module draws what eager draws (it drew the first module's values again before)."""
    outcomes = []
    for compiled in (False, True):
        torch.manual_seed(0)
        model = _FirstAndSecond()
        torch.manual_seed(5)
        fn = loom.compile(_two_lazy_call, backend="eager", dynamic=True) if compiled else _two_lazy_call
        loom.reset()
        result = fn(torch.arange(3.0), model)
        outcomes.append((result, model.second.weight.detach().clone(), torch.get_rng_state()))
    (want, want_weight, want_rng), (got, weight, rng) = outcomes
    torch.testing.assert_close(got, want)
    torch.testing.assert_close(weight, want_weight)
    assert torch.equal(rng, want_rng)
    assert loom.stats()["graph_breaks"] >= 1  # the break this is about happened
