"""``vars(cls)`` / ``cls.__dict__`` in a trace that also assigns attributes on ``cls``: the assignments reach
the real class only after the graph, so the trace's view of the dict shows them (``object_dicts``), read before
or after them, in one graph. Before, a read after ``cls.x = v`` saw the old value (a wrong answer), then each
was a graph break."""

import torch

import loom


class _Scaled:
    scale = 2


def _run(fn, *args):
    _Scaled.scale = 2
    expected = fn(*args)
    _Scaled.scale = 2
    loom.reset()
    result = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    _Scaled.scale = 2
    return expected, result, loom.stats()


def dict_read_after_assignment(x):
    _Scaled.scale = 7
    return x * vars(_Scaled)["scale"], _Scaled.__dict__["scale"]


def dict_held_across_assignment(x):
    view = vars(_Scaled)
    _Scaled.scale = 5
    return x * view["scale"]


def dict_read_alone(x):
    return x * vars(_Scaled)["scale"], "scale" in _Scaled.__dict__


def test_class_dict_read_after_an_assignment_sees_it():
    expected, result, stats = _run(dict_read_after_assignment, torch.ones(2))
    torch.testing.assert_close(result, expected)
    assert result[1] == 7 and (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_class_dict_held_across_an_assignment_sees_it():
    expected, result, stats = _run(dict_held_across_assignment, torch.ones(2))
    torch.testing.assert_close(result, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_class_dict_read_without_assignment_is_traced():
    expected, result, stats = _run(dict_read_alone, torch.ones(2))
    torch.testing.assert_close(result, expected)
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats
