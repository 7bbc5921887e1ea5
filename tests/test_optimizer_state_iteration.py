"""Iterating ``optimizer.state`` (a dict keyed by parameters) in the compiled frame: ``items()``, ``keys()``,
``values()`` and ``for p in state``.

These were a graph break ("attribute 'items' of defaultdict keyed by tensors"); the dict is now read whole,
each key the real parameter, the keys guarded to be those very objects in that order (a parameter gaining
state later compiles the frame again)."""

import torch

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


def _stepped(*params):
    """An SGD with momentum over ``params`` that has taken one step on every parameter with a gradient."""
    opt = torch.optim.SGD(params, lr=0.1, momentum=0.9)
    for i, p in enumerate(params):
        if i == 0 or len(params) == 1:
            p.grad = torch.full_like(p, 0.5 + i)
    opt.step()
    return opt


def _param(*values):
    return torch.nn.Parameter(torch.tensor(values))


def walk_state(x, w, opt):
    total = x.clone()
    for p, state in opt.state.items():
        total = total + state["momentum_buffer"] * p.detach()
    keys = list(opt.state.keys())
    buffers = [s["momentum_buffer"] * 2 for s in opt.state.values()]
    names = [p.shape for p in opt.state]
    return total, keys[0] is w, len(keys), buffers, names


def test_state_items_keys_values_in_one_graph():
    x = torch.arange(3.0)
    w = _param(0.5, -1.0, 2.0)
    opt = _stepped(w)
    expected = walk_state(x, w, opt)
    actual = _compiled(walk_state)(x, w, opt)
    assert _counts() == (1, 0)
    torch.testing.assert_close(actual[0], expected[0])
    assert actual[1:3] == (True, 1) == expected[1:3]
    torch.testing.assert_close(actual[3], expected[3])
    assert actual[4] == expected[4]


def test_a_parameter_gaining_state_compiles_again():
    x = torch.arange(3.0)
    w, v = _param(0.5, -1.0, 2.0), _param(1.0, 2.0, 3.0)
    opt = _stepped(w, v)
    compiled = _compiled(walk_state)
    first = compiled(x, w, opt)
    assert first[2] == 1
    v.grad = torch.ones(3)
    opt.step()
    expected = walk_state(x, w, opt)
    actual = compiled(x, w, opt)
    assert actual[2] == expected[2] == 2
    torch.testing.assert_close(actual[0], expected[0])
    torch.testing.assert_close(actual[3], expected[3])
