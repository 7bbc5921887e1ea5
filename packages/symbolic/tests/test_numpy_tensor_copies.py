"""``torch.tensor(array)`` of an ndarray made in the trace: a copy of the array's values, of its dtype (or of
``dtype=``), in the graph; it broke as an array passed to a torch operation (Paddle's test_numpy_array)."""

import numpy as np
import pytest
import torch
from harness import check


def copies_of_arrays(x):
    ints = np.array([[1, 2, 3], [4, 5, 6]])
    doubles = np.transpose(ints) * 0.5
    t = torch.tensor(ints)
    t.add_(1)  # a copy: the array keeps its values
    made = torch.tensor(doubles, dtype=torch.float32)
    return t, torch.as_tensor(ints), made, torch.tensor(doubles), x.reshape(1, 3) @ made, torch.tensor(np.mean(doubles))


def copy_of_tensor_numpy(x):
    a = (x * 2).numpy()
    t = torch.tensor(a)
    t.mul_(10)
    return t, torch.from_numpy(a)


@pytest.mark.parametrize("fn", [copies_of_arrays, copy_of_tensor_numpy])
def test_tensor_of_an_array_matches_eager(fn):
    check(fn, torch.arange(3.0))
