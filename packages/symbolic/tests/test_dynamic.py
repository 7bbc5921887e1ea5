"""Dynamic shapes in the translator: symbolic sizes and ints, relation guards, 0/1 specialisation."""

import math
import types

import pytest
import torch

import loom_guards
from loom_symbolic import translate_function
from loom_symbolic.shapes import DynamicSpec


def translate_dynamic(fn, *args, dims=None, ints=(), all_dims=False):
    spec = DynamicSpec(all_dims=all_dims, dims={k: frozenset(v) for k, v in (dims or {}).items()}, ints=frozenset(ints))
    t = translate_function(fn, *args, dynamic=spec)
    assert t.code is not None and not t.breaks, t.dump()
    t.install(fn.__globals__, lambda graph: graph.graph_module)
    rewritten = types.FunctionType(t.code, fn.__globals__, fn.__name__, fn.__defaults__, fn.__closure__)
    return t, rewritten, loom_guards.compile(t.guards)


def relations(t):
    return [g for g in t.guards if isinstance(g, loom_guards.Relation)]


def test_one_graph_serves_every_batch_size():
    def f(x):
        b, d = x.shape
        return x.view(b * d).relu().view(b, d) * b

    t, rewritten, guard = translate_dynamic(f, torch.randn(4, 3), dims={"L['x']": {0}})
    for b in (2, 5, 16):
        x = torch.randn(b, 3)
        assert guard({"x": x})
        torch.testing.assert_close(rewritten(x), f(x))
    assert not guard({"x": torch.randn(4, 5)})  # the static dimension is still checked
    assert "size()[0]" in str(relations(t)[0].symbols)


def test_relations_between_two_inputs_become_guards():
    def f(x, y):
        return x + y

    t, rewritten, guard = translate_dynamic(f, torch.randn(4, 3), torch.randn(4, 3),
                                            dims={"L['x']": {0}, "L['y']": {0}})
    assert guard({"x": torch.randn(6, 3), "y": torch.randn(6, 3)})
    assert not guard({"x": torch.randn(6, 3), "y": torch.randn(7, 3)})
    assert "==" in guard.why_failed({"x": torch.randn(6, 3), "y": torch.randn(7, 3)})


def test_branch_on_a_size_guards_the_relation_it_relied_on():
    def f(x):
        if x.shape[0] > 8:
            return x * 2
        return x * 3

    t, rewritten, guard = translate_dynamic(f, torch.randn(10, 2), dims={"L['x']": {0}})
    assert guard({"x": torch.randn(12, 2)})
    assert not guard({"x": torch.randn(5, 2)})  # would take the other branch
    x = torch.randn(12, 2)
    torch.testing.assert_close(rewritten(x), f(x))


@pytest.mark.parametrize("size", [0, 1])
def test_sizes_zero_and_one_are_specialised(size):
    def f(x):
        return x.sum(0) + x.shape[0]

    t, rewritten, guard = translate_dynamic(f, torch.randn(size, 3), dims={"L['x']": {0}})
    assert guard({"x": torch.randn(size, 3)})
    assert not guard({"x": torch.randn(4, 3)})  # 0 and 1 are their own cases
    assert not relations(t)


def test_dynamic_int_argument_is_a_graph_input():
    def f(x, n):
        return x * n + n

    t, rewritten, guard = translate_dynamic(f, torch.randn(3), 5, ints=["L['n']"])
    placeholders = [n for n in t.graphs[0].graph_module.graph.nodes if n.op == "placeholder"]
    assert len(placeholders) == 2
    for n in (5, 7, -2):
        assert guard({"x": torch.randn(3), "n": n})
        torch.testing.assert_close(rewritten(torch.ones(3), n), f(torch.ones(3), n))
    assert not guard({"x": torch.randn(3), "n": 2.5})


def test_all_dims_dynamic():
    def f(x):
        return x.t().reshape(-1).cumsum(0)

    t, rewritten, guard = translate_dynamic(f, torch.randn(3, 4), all_dims=True)
    x = torch.randn(5, 6)
    assert guard({"x": x})
    torch.testing.assert_close(rewritten(x), f(x))


def test_numel_and_len_of_a_dynamic_tensor():
    def f(x):
        return x.reshape(-1) / x.numel(), len(x)

    t, rewritten, guard = translate_dynamic(f, torch.randn(4, 2), dims={"L['x']": {0}})
    x = torch.randn(9, 2)
    result = rewritten(x)
    torch.testing.assert_close(result[0], f(x)[0])
    assert result[1] == 9


def test_loop_over_a_dynamic_size_specialises_it():
    def f(x):
        total = x[0]
        for i in range(x.shape[0]):
            total = total + x[i]
        return total

    t, rewritten, guard = translate_dynamic(f, torch.randn(3, 2), dims={"L['x']": {0}})
    assert guard({"x": torch.randn(3, 2)})
    assert not guard({"x": torch.randn(4, 2)})  # unrolling fixed the trip count


def test_augmented_assignment_on_a_symbolic_int_makes_a_new_value():
    def f(x, n):
        n += 1
        n *= 2
        return x * n, n

    t, rewritten, guard = translate_dynamic(f, torch.randn(3), 5, ints=["L['n']"])
    loom_backends = pytest.importorskip("loom_backends", reason="runs the graph through a loom backend")

    graph = t.graphs[0]
    compiled = loom_backends.get("aot_eager")(graph.graph_module, graph.example_inputs)
    assert [str(s) for s in graph.input_sources] == ["L['n']", "L['x']"]  # n is read first
    for n in (5, 9):
        x = torch.randn(3)
        out = compiled(n, x)
        assert out[1] == (n + 1) * 2
        torch.testing.assert_close(out[0], x * ((n + 1) * 2))
        torch.testing.assert_close(rewritten(x, n)[0], f(x, n)[0])


def test_dividing_by_a_symbolic_int_guards_that_it_is_not_zero():
    # The graph would raise ZeroDivisionError only when it runs, outside the user's try.
    def f(x, n):
        try:
            r = 1 / n + 7 // n + 7 % n
        except ZeroDivisionError:
            r = -1
        return x + r

    t, rewritten, guard = translate_dynamic(f, torch.randn(3), 5, ints=["L['n']"])
    assert guard({"x": torch.randn(3), "n": 2})
    torch.testing.assert_close(rewritten(torch.ones(3), 2), f(torch.ones(3), 2))
    assert not guard({"x": torch.randn(3), "n": 0})


def test_a_float_decision_on_a_symbolic_int_pins_it():
    # Relations are over ints: `torch.sym_float(s0) >= 0.0` (from n ** 0.5) and `s0 / 2 > 1.6` cannot be
    # said, so the symbol is pinned to its value instead.
    def f(x, n):
        if n / 2 > 1.6:
            return x + n ** 0.5
        return x

    t, rewritten, guard = translate_dynamic(f, torch.randn(3), 5, ints=["L['n']"])
    torch.testing.assert_close(rewritten(torch.ones(3), 5), f(torch.ones(3), 5))
    assert guard({"x": torch.randn(3), "n": 5})
    assert not guard({"x": torch.randn(3), "n": 3})


def test_a_data_dependent_size_breaks_the_graph_under_dynamic_shapes():
    # With a ShapeEnv, FakeTensors give x[mask] an unbacked size instead of failing; no backend can
    # compile that graph, so it must break here as it does without dynamic shapes.
    def f(x, n):
        return x[x > 0] * n

    t = translate_function(f, torch.randn(6), 3, dynamic=DynamicSpec(ints=frozenset(["L['n']"])))
    assert t.breaks and "data-dependent" in str(t.breaks[0])
    for graph in t.graphs:
        assert "getitem" not in str(graph.graph_module.code)


def test_decisions_a_backend_takes_on_symbols_are_guarded_after_install():
    from functorch.compile import make_boxed_func
    from torch._functorch.aot_autograd import aot_module_simplified

    def f(x):
        a, b = x[1:].chunk(2, dim=1)
        return (a * b).relu()

    spec = DynamicSpec(all_dims=True)
    t = translate_function(f, torch.randn(4, 6), dynamic=spec)
    before = set(map(str, relations(t)))

    def compile_with_aot(graph):
        # AOTAutograd re-traces the graph over the same ShapeEnv, deciding things of its own.
        return aot_module_simplified(graph.graph_module, graph.example_inputs, fw_compiler=lambda gm, inputs: make_boxed_func(gm.forward))

    t.install(f.__globals__, compile_with_aot)
    added = set(map(str, relations(t))) - before
    assert added, "AOTAutograd's decisions on the symbols were not added to the guards"
    assert before <= set(map(str, relations(t)))


def test_math_prod_of_a_symbolic_size_is_one_graph():
    def f(x):
        return x.new_ones(math.prod([x.shape[0], 2])) * math.prod(x.shape, start=3)

    t, rewritten, guard = translate_dynamic(f, torch.randn(4), dims={"L['x']": {0}})
    for b in (2, 7):
        x = torch.randn(b)
        assert guard.why_failed(types.SimpleNamespace(f_locals={"x": x}, f_globals=f.__globals__, closure=None)) is None
        torch.testing.assert_close(rewritten(x), f(x))
