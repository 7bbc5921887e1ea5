"""``ModuleList``/``Sequential``/``ModuleDict`` whose ``_modules`` the frame changed (``append``, ``insert``,
an item assigned), then iterated, indexed or walked in the same frame.

Listing the children after such a change was a graph break ("the program added or removed one earlier in
this frame"): the containers now read the trace's ``_modules`` entries, and the real table gets them after
the graph. Walking ``named_modules()`` over a module made in the frame still breaks (it has no tables the
walk could read), with eager's answer."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def _seeded(make):
    torch.manual_seed(0)
    return make()


def grow_module_list(x, layers):
    layers.append(nn.Sigmoid())
    layers.insert(0, nn.Tanh())
    for layer in layers:
        x = layer(x)
    return x, len(layers), type(layers[0]).__name__


def grow_sequential(x, seq):
    seq.append(nn.ReLU())
    return seq(x - 1), len(seq)


def grow_module_dict(x, acts):
    acts["tanh"] = nn.Tanh()
    y = x
    for name in acts:
        y = acts[name](y)
    return y, "tanh" in acts, list(acts.keys())


def _check(fn, make, expected_types):
    x = torch.arange(3.0)
    expected = fn(x, _seeded(make))
    container = _seeded(make)
    actual = _compiled(fn)(x, container)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:] == expected[1:]
    assert _counts() == (1, 0)
    assert [type(m).__name__ for m in container._modules.values()] == expected_types


def test_a_module_list_grown_in_the_frame_is_iterated_in_one_graph():
    _check(grow_module_list, lambda: nn.ModuleList([nn.Linear(3, 3)]), ["Tanh", "Linear", "Sigmoid"])


def test_a_sequential_appended_to_in_the_frame_runs_its_new_layer():
    _check(grow_sequential, lambda: nn.Sequential(nn.Linear(3, 3)), ["Linear", "ReLU"])


def test_a_module_dict_item_assigned_in_the_frame_is_found_and_iterated():
    _check(grow_module_dict, lambda: nn.ModuleDict({"relu": nn.ReLU()}), ["ReLU", "Tanh"])


def walk_after_growth(x, layers):
    layers.append(nn.Sigmoid())
    return x + 1, [name for name, _ in layers.named_modules()]


def test_walking_modules_made_in_the_frame_breaks_with_eagers_answer():
    x = torch.arange(3.0)
    expected = walk_after_growth(x, nn.ModuleList([nn.Identity()]))
    actual = _compiled(walk_after_growth)(x, nn.ModuleList([nn.Identity()]))
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1] == expected[1] == ["", "0", "1"]
