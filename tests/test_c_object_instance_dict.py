"""``vars(obj)`` / ``obj.__dict__`` of a C class's instance that has one (``types.SimpleNamespace``) follows
the rules a Python class's instance does: read after the trace stored attributes on the object, it is seen
with those stores laid over it; once held, a later store is shown in it too (``object_dicts``). Before, the real
dict was read whatever the trace had stored (the stores reach it only after the graph): the old values, a wrong
answer; then a store after the read was a graph break."""

import types

import torch

import loom


def _run(fn, make_args):
    expected = fn(*make_args())
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(*make_args())
    return expected, result, loom.stats()


def _namespace():
    return torch.ones(2), types.SimpleNamespace(a=1)


def dict_after_store(x, ns):
    ns.a = 5
    return x * vars(ns)["a"]


def dict_held_across_store(x, ns):
    d = vars(ns)
    ns.a = 5
    return x * d["a"]


def dict_alone(x, ns):
    return x * ns.__dict__["a"], sorted(vars(ns))


def test_namespace_dict_after_a_store_sees_it():
    for fn, breaks in ((dict_after_store, 0), (dict_held_across_store, 0)):
        expected, result, stats = _run(fn, _namespace)
        torch.testing.assert_close(result, expected)
        assert stats["graph_breaks"] == breaks, (fn.__name__, stats)


def test_namespace_dict_alone_is_traced():
    expected, result, stats = _run(dict_alone, _namespace)
    torch.testing.assert_close(result[0], expected[0])
    assert result[1] == expected[1] == ["a"]
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
