"""loom.explain: what it reports, how it prints, and that it leaves nothing behind."""

import sys

import pytest
import torch

import loom
import loom_framehook as framehook
import loom_guards
from loom.examples.models import TinyMLP


def helper(x):
    return torch.relu(x) * 2


def pointwise(x, y):
    return torch.sin(x) + helper(y)


def noisy(x):
    y = pointwise(x, x)
    print("noisy", y.shape, file=sys.stdout)
    return y - 1


def test_report_of_a_function_captured_in_one_graph():
    x, y = torch.randn(4), torch.randn(4)
    report = loom.explain(pointwise)(x, y)
    assert torch.equal(report.result, torch.sin(x) + torch.relu(y) * 2)
    assert report.graph_count == 1 and report.break_count == 0
    (graph,) = report.graphs
    assert graph.ops == ["torch.sin", "torch.relu", "mul", "add"]
    assert graph.op_count == 4 and report.ops_per_graph == [graph.ops]
    assert "torch.sin" in graph.code
    (guards,) = report.guards
    assert "L['x'] is a torch.Tensor" in guards and "shape=(4,)" in guards
    (where, seconds) = next(iter(report.compile_times.items()))
    assert where.startswith("pointwise (") and seconds > 0
    text = str(report)
    for part in ("loom.explain(pointwise): 1 graph, 0 graph breaks, 1 frame compiled", "Graphs (1, 4 ops)",
                 "torch.sin, torch.relu, mul, add", "Guards:", "Compile times:"):
        assert part in text, part
    assert "def forward" in report.format(verbose=True)
    code = report.bytecode()
    assert "original bytecode of pointwise" in code and "rewritten bytecode" in code and "__loom_graph_" in code


def test_report_says_when_the_guards_run_in_pure_python(monkeypatch):
    x = torch.randn(4)
    if loom_guards.accelerator_available():
        assert "pure-Python back end" not in str(loom.explain(pointwise)(x, x))
    monkeypatch.setattr(loom_guards, "accelerator_error", lambda: "no C++ compiler: 'g++' was not found")
    assert ("guards: pure-Python back end (the C++ accelerator is unavailable: no C++ compiler: 'g++' was not "
            "found)\n") in str(loom.explain(pointwise)(x, x))


def test_report_of_graph_breaks_names_the_users_line(capsys):
    x = torch.randn(3)
    report = loom.explain(noisy)(x)
    assert capsys.readouterr().out == "noisy torch.Size([3])\n"  # ran once
    assert torch.equal(report.result, torch.sin(x) + torch.relu(x) * 2 - 1)
    assert report.break_count >= 1
    first = report.breaks[0]
    line = noisy.__code__.co_firstlineno + 2
    assert (first.filename, first.lineno) == (__file__, line)
    assert first.source_line == 'print("noisy", y.shape, file=sys.stdout)' and "print" in first.what
    text = str(report)
    assert f":{line} in noisy" in text and 'print("noisy", y.shape, file=sys.stdout)' in text
    # the break splits noisy: one graph before the print (pointwise inlined), one in the resume function
    assert report.graph_count == 2 and report.break_count == 1
    assert [g.frame.split(" (")[0] for g in report.graphs] == ["noisy", "noisy"]


def test_explain_leaves_no_entries_counters_or_globals_behind():
    compiled = loom.compile(pointwise, backend="eager")
    x = torch.randn(4)
    compiled(x, x)
    before = (loom.stats(), len(framehook.entries(pointwise.__code__)))
    names_before = {n for n in globals() if n.startswith("__loom_")}
    report = loom.explain(noisy)(x)
    assert report.graph_count >= 1
    assert (loom.stats(), len(framehook.entries(pointwise.__code__))) == before
    assert {n for n in globals() if n.startswith("__loom_")} == names_before
    assert framehook.entries(noisy.__code__) == [] and not framehook.is_skipped(noisy.__code__)
    compiled(x, x)  # the real entry still serves
    assert loom.stats()["cache_hits"] == before[0]["cache_hits"] + 1


def uncapturable(x):
    names = locals()  # a frame that reads its own locals() runs as it is where it breaks
    print("uncapturable", len(names), file=sys.stdout)  # the break (a print to a stream)
    return helper(x).sum() + helper(x.double()).sum()


def test_explain_sees_frames_a_real_compile_marked_skip():
    compiled = loom.compile(uncapturable, backend="eager")
    compiled(torch.randn(3))
    assert framehook.is_skipped(uncapturable.__code__)
    report = loom.explain(uncapturable)(torch.randn(3))
    assert any(b.frame == "uncapturable" for b in report.breaks)


def test_explain_reports_recompiles_within_one_run():
    def outer(x):
        return uncapturable(x)  # helper runs as a frame of its own, twice: float32, then float64

    report = loom.explain(outer)(torch.randn(3))
    assert report.recompiles == 1
    first, second = [f for f in report.frames if f.name == "helper"]
    assert first.recompile_reason is None
    assert "dtype" in second.recompile_reason and "float64" in second.recompile_reason
    assert "recompiled because" in str(report)


def test_explain_a_module_and_a_compiled_module():
    model = TinyMLP(width=8, depth=2)
    x = torch.randn(2, 8)
    for target in (model, loom.compile(model, backend="aot_eager")):
        report = loom.explain(target)(x)
        torch.testing.assert_close(report.result, model(x))
        assert report.graph_count == 1 and report.graphs[0].frame == "TinyMLP.forward"
        assert report.backend == "eager"
    assert framehook.entries(TinyMLP.forward.__code__) == []


def test_explain_propagates_the_functions_exception_and_cleans_up():
    def fails(x):
        torch.cos(x)
        raise ValueError("from the program")

    with pytest.raises(ValueError, match="from the program"):
        loom.explain(fails)(torch.randn(2))
    assert framehook.get_callback() is None
    assert not any(n.startswith("__loom_") for n in globals())


def prints_in_a_loop(x, passes):
    y = x * 2
    for i in range(passes):
        y = y + i
        print(i, end="")
    return y.sin()


@pytest.mark.parametrize("passes", [3, 12])
def test_a_break_met_on_every_pass_of_a_loop_counts_once(passes, capsys):
    """The resume codes the first break makes meet the same ``print`` on each later pass: one construct, one
    break, in ``graph_break_count`` and ``loom.stats()``; ``breaks`` lists every one met."""
    report = loom.explain(prints_in_a_loop)(torch.ones(2), passes)
    assert report.graph_break_count == 1 and report.break_count > 1
    assert {(b.what, b.lineno) for b in report.breaks} == {(report.breaks[0].what, report.breaks[0].lineno)}
    assert f"1 graph break ({report.break_count} met" in report.format()
    loom.reset()
    compiled = loom.compile(prints_in_a_loop, backend="eager")
    assert torch.equal(compiled(torch.ones(2), passes), prints_in_a_loop(torch.ones(2), passes))
    assert loom.stats()["graph_breaks"] == 1
    compiled(torch.ones(2), passes)
    assert loom.stats()["graph_breaks"] == 1  # an identical call compiles nothing


@torch._dynamo.disable
def _runs_natively(t):
    return t + 1


def comprehension_with_a_break(x):
    y = x * 2
    return [_runs_natively(y * k) for k in range(6)]


def test_a_break_in_a_comprehension_counts_once_on_every_python():
    """On CPython 3.11 a comprehension is a function of its own, looping over an iterator that stands at
    another position on each pass: its resume codes take the loop's ``FOR_ITER`` natively after a few
    passes, which is the loop's own break, not a construct; and the caller's break at the call into the
    comprehension is the same construct as the comprehension's (3.11 counted 3 here, 3.12 and 3.13 1)."""
    report = loom.explain(comprehension_with_a_break)(torch.ones(2))
    assert report.graph_break_count == 1
    assert {b.what for b in report.breaks} <= {"call to _runs_natively",
                                                 "a loop over a range_iterator that stands at another position on each pass"}
    loom.reset()
    out = loom.compile(comprehension_with_a_break, backend="eager")(torch.ones(2))
    assert all(torch.equal(a, b) for a, b in zip(out, comprehension_with_a_break(torch.ones(2)), strict=True))
    assert loom.stats()["graph_breaks"] == 1


def test_a_recompile_of_the_function_counts_its_break_again(capsys):
    loom.reset()
    compiled = loom.compile(noisy, backend="eager", dynamic=False)
    compiled(torch.ones(2))
    compiled(torch.ones(2, dtype=torch.float64))
    assert loom.stats()["graph_breaks"] == 2
