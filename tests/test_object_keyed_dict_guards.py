"""A value read from a dict under a key no guard source can spell (a class, a function: ``{int: handler}``) is
guarded through its position in the dict, tied to the key by the dict's keys guard: replacing it recompiles.
Before, such a value had no source and no guard, and the compiled code kept the old one (a wrong answer)."""

import torch

import loom

X = torch.zeros(2)

HANDLERS = {int: lambda v: 1, str: lambda v: 2}
TABLE = {int: 10, len: 20}


def _reads(x):
    return x + HANDLERS[int](3) + TABLE[int] + TABLE.get(len)


def test_replaced_values_under_object_keys_recompile():
    loom.reset()
    compiled = loom.compile(_reads, backend="eager")
    assert torch.equal(compiled(X), _reads(X))
    HANDLERS[int] = lambda v: 100
    assert torch.equal(compiled(X), _reads(X))
    TABLE[int] = 1000
    assert torch.equal(compiled(X), _reads(X))
    TABLE[len] = 5
    assert torch.equal(compiled(X), _reads(X))
    assert compiled(X).tolist() == [1105.0, 1105.0]


def test_unchanged_values_keep_the_compiled_entry():
    loom.reset()
    compiled = loom.compile(_reads, backend="eager")
    compiled(X)
    compiled(X)
    assert loom.stats()["graphs"] == 1
