"""``hash()`` of a tensor and of a tuple holding one (issue 29, CPython's test_tuple in PyTorch's Dynamo suite):
``Tensor.__hash__`` is ``id()``, so ``hash(t)`` is the tensor's id (equal to its ``id()`` and to its hash
again, whatever the address); a tuple's hash reads its members' hashes, which for a tensor passed in is its
address, under an identity guard (another tensor recompiles). Each was a graph break."""

import torch
from breaks_harness import compare

import loom


def tensor_hash_is_its_id(x):
    y = x * 2
    return y, hash(x) == id(x), hash(y) == hash(y), hash(y) == id(x)


def tuple_hash_of_an_input(x):
    t = (x, 1)
    return x + 1, hash(t) == hash((x, 1)), hash(t) == hash((x, 2)), len({t, (x, 1)})


def returned_hash(x):
    return x - 1, hash((x, "k")), hash(x)


def test_hash_of_a_tensor_and_of_a_tuple_holding_one_are_one_graph():
    for fn in (tensor_hash_is_its_id, tuple_hash_of_an_input):
        stats = compare(fn, torch.arange(3.0))
        assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), (fn.__name__, stats)


def test_a_returned_hash_is_the_tensors_own_and_another_tensor_recompiles():
    loom.reset()
    compiled = loom.compile(returned_hash, backend="eager")
    for x in (torch.arange(3.0), torch.ones(3)):
        _, tuple_hash, tensor_hash = compiled(x)
        assert tuple_hash == hash((x, "k"))
        assert tensor_hash == hash(x) == id(x)
    assert loom.stats()["graph_breaks"] == 0
