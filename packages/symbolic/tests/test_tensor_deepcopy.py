"""``copy.deepcopy`` of a tensor made in the trace (issue 29: ``dataclasses.astuple`` deep-copies its
tensor fields): a ``clone`` in the graph where that is eager's copy (a tensor that is its whole storage,
no grad, no attributes), so it does not break, and of a graph input that owns its storage so (no view,
guarded); a view or a tensor requiring grad is handed to the original ``deepcopy`` (a break), whose copy
keeps the storage, offset and leaf status."""

import copy
import dataclasses

import torch
from harness import assert_same, run_rewritten

from loom_symbolic import translate_function

X = torch.arange(6.0)


@dataclasses.dataclass
class Out:
    logits: torch.Tensor
    loss: torch.Tensor | None = None


def astuple_of_made_tensors(x):
    out = Out(logits=x * 2)
    out.loss = out.logits.sum()
    return out.logits + out.loss, dataclasses.astuple(out), out == out


def copies_share_the_memo(x):
    y = x.t() * 2  # transposed strides: a clone keeps them
    pair = copy.deepcopy([y, y])
    pair[0].add_(1)
    return pair[1], pair[0] is pair[1], y


def copies_a_view(x):
    v = (x * 2)[2:]
    c = copy.deepcopy(v)
    return c, c.storage_offset(), c.untyped_storage().nbytes()


def copies_an_input(x):
    return copy.deepcopy(x) + 1


def _check(fn, x, breaks):
    translation = translate_function(fn, x)
    assert len(translation.breaks) == breaks, [str(b.reason) for b in translation.breaks]
    assert_same(run_rewritten(fn, translation, (x.clone(),), {}), fn(x.clone()))


def test_astuple_of_tensors_made_in_the_trace_is_one_graph():
    _check(astuple_of_made_tensors, X, breaks=0)


def test_a_copy_keeps_strides_and_the_memo():
    _check(copies_share_the_memo, X.reshape(2, 3), breaks=0)


def copies_an_input_view(x):
    c = copy.deepcopy(x)
    return c, c.storage_offset(), c.untyped_storage().nbytes()


def test_an_input_owning_its_storage_is_cloned():
    _check(copies_an_input, X, breaks=0)
    _check(copies_an_input, torch.empty_strided((3, 2), (1, 3)).copy_(X.view(3, 2)), breaks=0)  # strides kept


def test_views_and_inputs_are_copied_by_the_original():
    _check(copies_a_view, X, breaks=1)
    _check(copies_an_input_view, X[2:], breaks=1)  # eager copies its base's whole storage, at offset 2
    _check(copies_an_input_view, X.view(2, 3), breaks=1)  # a view of the whole storage: refused all the same
    leaf = X.clone().requires_grad_()
    assert translate_function(copies_an_input, leaf).breaks
