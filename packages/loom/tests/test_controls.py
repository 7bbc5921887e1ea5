"""loom.disable (both kinds), loom.graph_break and loom.allow_in_graph."""

import torch

import loom
import loom_framehook as framehook
import loom_symbolic


def test_disable_recursive_false_leaves_only_that_frame_uncompiled():
    def leaf(x):
        return torch.sin(x) + 2

    @loom.disable(recursive=False)
    def middle(x):
        return leaf(x) * 3

    def outer(x):
        return middle(x) - 1

    x = torch.randn(4)
    assert torch.equal(loom.compile(outer, backend="eager")(x), (torch.sin(x) + 2) * 3 - 1)
    assert framehook.entries(middle.__code__) == []
    assert framehook.is_skipped(middle.__code__)
    assert len(framehook.entries(leaf.__code__)) == 1  # what it calls is still compiled
    assert loom_symbolic.is_skipped(middle.__code__)  # never inlined either
    assert loom.disable(middle, recursive=False) is middle  # returns fn itself


def test_disable_recursive_true_leaves_everything_below_uncompiled():
    def leaf(x):
        return torch.sin(x) + 2

    def middle_fn(x):
        assert framehook.get_callback() is None  # the hook is off for this thread in here
        return leaf(x) * 3

    middle = loom.disable(middle_fn)

    def outer(x):
        return middle(x) - 1

    x = torch.randn(4)
    assert torch.equal(loom.compile(outer, backend="eager")(x), (torch.sin(x) + 2) * 3 - 1)
    assert framehook.entries(middle_fn.__code__) == []
    assert framehook.entries(leaf.__code__) == []
    assert middle.__name__ == "middle_fn" and middle._loom_disabled
    assert not loom_symbolic.is_skipped(middle_fn.__code__)  # the original is left as it is


def test_disable_as_a_plain_decorator_and_on_a_method():
    @loom.disable
    def helper(x):
        return x + 1

    class Thing:
        def method(self, x):
            return x * 2

    thing = Thing()
    unhooked = loom.disable(thing.method, recursive=False)
    assert unhooked == thing.method and loom_symbolic.is_skipped(Thing.method.__code__)
    assert torch.equal(helper(torch.ones(2)), torch.full((2,), 2.0))


def test_disabled_code_stays_disabled_after_reset():
    @loom.disable(recursive=False)
    def middle(x):
        return x + 1

    def outer(x):
        return middle(x)

    loom.compile(outer, backend="eager")(torch.randn(2))
    loom.reset()  # clears the hook's marks; the callback marks it again without translating it
    loom.compile(middle, backend="eager")(torch.randn(2))
    assert framehook.entries(middle.__code__) == [] and loom.stats()["frames_compiled"] == 0


def test_graph_break_does_nothing_natively_and_breaks_when_traced():
    assert loom.graph_break() is None

    def f(x):
        y = x + 1
        loom.graph_break()
        return y * 2

    x = torch.randn(3)
    assert torch.equal(loom.compile(f, backend="eager")(x), (x + 1) * 2)
    report = loom.explain(f)(x)
    assert report.break_count >= 1
    assert any("graph_break" in b.what and b.lineno == f.__code__.co_firstlineno + 2 for b in report.breaks)


def test_allow_in_graph_records_one_op():
    def fused(a, b):
        return a * b + a

    assert loom.allow_in_graph(fused) is fused

    def f(x):
        return fused(x, x) - 1

    x = torch.randn(3)
    report = loom.explain(f)(x)
    assert torch.equal(report.result, x * x + x - 1)
    (graph,) = report.graphs
    assert any("fused" in op for op in graph.ops)
    assert not any("mul" in op for op in graph.ops)  # not traced into
    assert torch.equal(loom.compile(f, backend="eager")(x), x * x + x - 1)
    assert framehook.entries(fused.__code__) == []  # run by the graph with the hook off: never a frame of its own
