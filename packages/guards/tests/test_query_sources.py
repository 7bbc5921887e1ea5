"""Sources that ask a question: a tensor's ``is_leaf`` and ``storage_offset()`` (which ``TensorMatch`` does not
compare), and a query called with constant arguments; fetched, printed, compared, made portable and checked by
compiled guards on both back ends."""

from __future__ import annotations

import pickle

import pytest
import torch

from loom_guards import Called, Const, ConstantMatch, Local, TensorMatch, TensorMeta

from .portable_helpers import round_trip, same_verdicts


def test_tensor_meta_reads_is_leaf_and_storage_offset():
    base = torch.arange(6.0)
    leaf = torch.ones(2, requires_grad=True)
    offset, is_leaf = TensorMeta(Local("t"), "storage_offset"), TensorMeta(Local("t"), "is_leaf")
    assert str(offset) == "L['t'].storage_offset()" and str(is_leaf) == "L['t'].is_leaf"
    assert pickle.loads(pickle.dumps(offset)) == offset and offset != is_leaf
    assert offset.fetch({"t": base[2:4]}) == 2 and offset.fetch({"t": base}) == 0
    assert is_leaf.fetch({"t": leaf}) is True and is_leaf.fetch({"t": leaf * 1}) is False
    with pytest.raises(TypeError):
        offset.fetch({"t": [1, 2]})  # not a tensor: the guard fails, it calls nothing of the object
    with pytest.raises(ValueError):
        TensorMeta(Local("t"), "data_ptr")


def test_guards_on_tensor_meta_tell_apart_what_the_tensor_guard_does_not(build):
    base = torch.arange(6.0)
    leaf = torch.ones(2, requires_grad=True)
    views = build([TensorMatch(Local("t"), base[:2]), ConstantMatch(TensorMeta(Local("t"), "storage_offset"), 0)])
    assert views({"t": base[:2]}) and not views({"t": base[2:4]})
    leaves = build([TensorMatch(Local("t"), leaf), ConstantMatch(TensorMeta(Local("t"), "is_leaf"), True)])
    assert leaves({"t": leaf}) and not leaves({"t": leaf * 1})
    assert not leaves({"t": "not a tensor"})


def test_called_asks_again_at_every_check(build):
    answers = {"flag": False}

    def query(key):
        return answers[key]

    source = Called(Const(query), ("flag",))
    assert str(source).endswith("('flag')") and source == Called(Const(query), ("flag",))
    assert Called(Const(query), (1,)) != Called(Const(query), (True,))
    guard = build([ConstantMatch(source, False)])
    assert guard({})
    answers["flag"] = True
    assert not guard({})
    with pytest.raises(TypeError):
        Called(Const(query), ["flag"])
    keyed = Called(Const(query), (), (("key", "flag"),))
    assert str(keyed).endswith("(key='flag')") and keyed.fetch({}) is True
    with pytest.raises(TypeError):
        Called(Const(query), (), (("key",),))


def test_query_sources_are_portable(build):
    base = torch.arange(6.0)
    guards = [
        ConstantMatch(TensorMeta(Local("t"), "storage_offset"), 2),
        ConstantMatch(TensorMeta(Local("g"), "is_leaf"), False),
        ConstantMatch(Called(Const(torch.is_anomaly_enabled)), False),
        ConstantMatch(Called(Const(torch.promote_types), (torch.int64,), (("type2", torch.float32),)), torch.float32),
    ]
    rebuilt = round_trip(guards)
    assert rebuilt == guards
    leaf = torch.ones(2, requires_grad=True)
    frames = [{"t": base[2:4], "g": leaf * 1}, {"t": base[1:3], "g": leaf * 1}, {"t": base[2:4], "g": leaf}]
    assert same_verdicts(build, guards, rebuilt, frames) == [True, False, False]
