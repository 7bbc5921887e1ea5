"""``torch.profiler.record_function`` regions in compiled code: no graph break, eager's results.

As under torch.compile (``capture_profiler_record_function=False``, its default), a region inside a
graph is a nullcontext; a graph break inside one re-enters a real region for the part that runs eagerly.
"""

from __future__ import annotations

import torch
from torch.profiler import ProfilerActivity, profile, record_function

import loom


def nested(x):
    with torch.autograd.profiler.record_function("outer"):
        y = x.sin()
        with record_function("inner", "details") as region:
            y = y + 1
        z = y * 2
    return z, region is not None


def test_record_function_regions_do_not_break_the_graph():
    x = torch.randn(4)
    report = loom.explain(nested)(x)
    assert report.graph_count == 1 and report.break_count == 0, report
    compiled = loom.compile(nested, fullgraph=True, backend="eager")
    z, entered = compiled(x)
    want, _ = nested(x)
    assert torch.equal(z, want) and entered


def test_record_function_with_a_runtime_name_breaks_instead_of_guessing():
    def named(x, name):
        with record_function(name):
            return x + 1

    x = torch.randn(3)
    assert torch.equal(loom.compile(named, backend="eager")(x, "region"), x + 1)


def test_a_graph_break_inside_a_region_keeps_the_region_in_the_profile():
    def breaks_inside(x):
        with record_function("kept-region"):
            y = x.cos()
            loom.graph_break()
            y = y.sin()
        return y + 1

    x = torch.randn(4)
    compiled = loom.compile(breaks_inside, backend="eager")
    compiled(x)  # compile first: the profile below sees only the compiled run
    with profile(activities=[ProfilerActivity.CPU]) as prof:
        out = compiled(x)
    assert torch.equal(out, breaks_inside(x))
    assert "kept-region" in {event.name for event in prof.events()}


def test_ddp_style_forward_wrapped_in_a_region_is_one_graph():
    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.inner = torch.nn.Linear(4, 4)

        def forward(self, x):
            with torch.autograd.profiler.record_function("Wrapped.forward"):
                return self.inner(x).relu()

    model = Wrapped()
    x = torch.randn(2, 4)
    report = loom.explain(model)(x)
    assert report.graph_count == 1 and report.break_count == 0, report
    assert torch.equal(loom.compile(model, fullgraph=True, backend="eager")(x), model(x))
