"""``tensor.__class__`` (issue 29, Paddle's SOT tensor tests): the tensor's class, as ``type(tensor)``
answers it, so ``x.__class__.__name__`` and ``x.__class__ is torch.Tensor`` stay in the graph; a call with a
tensor of another class (a Parameter) sees its own class."""

import torch
from breaks_harness import compare

import loom


def class_name(x):
    return x + 1, x.__class__.__name__, x.__class__ is torch.Tensor


def new_of_same_class(x):
    return x.__class__ is torch.nn.Parameter, x * 2


def test_dunder_class_of_a_tensor_stays_in_the_graph():
    stats = compare(class_name, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_parameter_argument_sees_its_own_class():
    loom.reset()
    compiled = loom.compile(new_of_same_class, backend="eager")
    plain = torch.arange(3.0)
    param = torch.nn.Parameter(torch.arange(3.0))
    assert compiled(plain)[0] is False
    assert compiled(param)[0] is True
    assert compiled(plain)[0] is False
