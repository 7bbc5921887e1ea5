"""The AttributeError for a missing attribute of a builtin container or constant, caught in the frame: its
message, ``args``, ``name`` and ``obj`` are eager's. A C type defined outside ``builtins`` is named with its
module, as CPython's ``tp_name`` is (``'collections.OrderedDict' object has no attribute 'x'``; the trace said
``'OrderedDict'``: a wrong answer, as for a ``deque``, whose stand-in class named itself). The error of a
frozenset or set made in the frame, or of a constant, had no ``args``, so ``str(e)`` broke the graph."""

import collections

import torch

import loom


def _explain(fn, *args):
    loom.reset()
    return loom.explain(fn)(*args)


def _caught(obj, name):
    try:
        getattr(obj, name)
    except AttributeError as e:
        return str(e), e.args, e.name, e.obj is obj
    return None


def _c_containers(x):
    found = [_caught(collections.OrderedDict(a=1), "zz"), _caught(collections.defaultdict(int), "zz"),
             _caught(collections.deque([1]), "zz")]
    return x + 1, found


def _frozen_mutators(x):
    s = frozenset((1, 2, 3))
    return x + len(s), [_caught(s, name) for name in ("add", "pop", "discard")], _caught({1}, "zz")


def _constants(x):
    return x * 2, [_caught(3, "zz"), _caught("text", "zz"), _caught((1, 2), "zz")]


def test_c_container_errors_name_the_module():
    x = torch.arange(3.0)
    report = _explain(_c_containers, x)
    expected = _c_containers(x)
    assert report.result[1] == expected[1]
    assert report.result[1][0][0] == "'collections.OrderedDict' object has no attribute 'zz'"
    assert report.result[1][2][0] == "'collections.deque' object has no attribute 'zz'"


def test_frozenset_mutator_errors_are_formatted_in_graph():
    x = torch.arange(3.0)
    report = _explain(_frozen_mutators, x)
    assert report.result[1:] == _frozen_mutators(x)[1:]
    assert report.graph_count == 1 and report.break_count == 0


def test_constant_attribute_errors_carry_args_name_and_obj():
    x = torch.arange(3.0)
    report = _explain(_constants, x)
    assert report.result[1] == _constants(x)[1]
    assert report.graph_count == 1 and report.break_count == 0
