"""The translator's aliasing guards: one object through two sources, distinct objects a trace relied on."""

import torch

import loom_guards
from loom_symbolic import translate_function


def _kinds(translation) -> list[type]:
    return [type(g) for g in translation.guards]


def test_one_tensor_through_two_arguments_is_one_graph_input_guarded_by_same_object():
    x = torch.ones(2)
    t = translate_function(lambda a, b: a * b, x, x)
    (graph,) = t.graphs
    assert [n.op for n in graph.graph_module.graph.nodes].count("placeholder") == 1
    assert loom_guards.SameObject in _kinds(t)


def test_one_list_through_two_arguments_is_one_variable_guarded_by_same_object():
    shared = [torch.ones(2)]

    def f(a, b):
        a.append(1)
        return b[0] + len(b)

    t = translate_function(f, shared, shared)
    assert loom_guards.SameObject in _kinds(t)


def test_pure_graphs_over_distinct_inputs_need_no_aliasing_guard():
    t = translate_function(lambda a, b: a + b, torch.ones(2), torch.ones(2))
    assert loom_guards.NoAliasing not in _kinds(t)
    assert loom_guards.SameObject not in _kinds(t)


def test_a_mutation_makes_distinct_inputs_guarded_distinct():
    def f(a, b):
        a.mul_(2)
        return b + 1

    t = translate_function(f, torch.ones(2), torch.ones(2))
    (guard,) = [g for g in t.guards if isinstance(g, loom_guards.NoAliasing)]
    assert [str(s) for s in guard.sources] == ["L['a']", "L['b']"]
