"""A call whose result is unused but that writes one of its arguments in place is not dead code, even
when its name does not say so: ``F.batch_norm(..., training=True)`` updates the running statistics
(``native_batch_norm``'s schema does not mark them written)."""

import pytest
import torch
import torch.nn.functional as F
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.randn(4, 3)


@case(X, torch.zeros(3), torch.ones(3))
def batch_norm_statistics_with_the_result_unused(x, running_mean, running_var):
    F.batch_norm(x, running_mean, running_var, training=True)
    return x + 1


@case(X, torch.zeros(3), torch.ones(3))
def batch_norm_in_eval_leaves_them(x, running_mean, running_var):
    F.batch_norm(x, running_mean, running_var, training=False)
    return x + 1


@case(X, torch.nn.BatchNorm1d(3))
def a_layer_in_training_mode_with_the_result_unused(x, layer):
    layer(x)
    return x + 1, layer.running_mean.clone(), layer.running_var.clone()


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_hidden_writes_are_kept(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
