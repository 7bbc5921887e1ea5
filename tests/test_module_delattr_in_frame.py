"""``del module.name`` in the frame, as ``nn.Module.__delattr__`` makes it.

It was a graph break ("deleting attribute ... of module: not modelled"). A submodule or parameter now leaves
its table in the trace (``hasattr`` and ``_modules`` read later in the frame miss it) and the real table
after the graph; a plain attribute leaves the instance dict. Another call with a module that still has the
member runs the same compiled code."""

import torch
from torch import nn

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


class Block(nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.layer = nn.Linear(3, 3)
        self.act = nn.ReLU()
        self.gain = nn.Parameter(torch.full((3,), 2.0))
        self.note = "plain"


def drops_members(x, mod):
    del mod.act
    del mod.gain
    del mod.note
    return mod.layer(x) * 2, hasattr(mod, "act"), hasattr(mod, "gain"), hasattr(mod, "note"), list(mod._modules)


def test_deleting_a_submodule_a_parameter_and_an_attribute_is_captured():
    x = torch.arange(3.0)
    expected = drops_members(x, Block())
    compiled = _compiled(drops_members)
    for _ in range(2):
        mod = Block()
        actual = compiled(x, mod)
        torch.testing.assert_close(actual[0], expected[0])
        assert actual[1:] == expected[1:] == (False, False, False, ["layer"])
        assert list(mod._modules) == ["layer"] and "gain" not in mod._parameters
        assert "note" not in mod.__dict__
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (1, 0, 0)


def deletes_missing(x, mod):
    try:
        del mod.absent
    except AttributeError:
        return x + 1
    return x


def test_deleting_a_missing_attribute_raises_attribute_error():
    x = torch.arange(3.0)
    torch.testing.assert_close(_compiled(deletes_missing)(x, Block()), x + 1)
