"""``np.int64`` scalars made while tracing, handed to torch functions: torch reads one as the Python int
it holds (a size, a fill value, ``torch.tensor``'s int64), so the graph takes that int (issue 29,
PyTorch test_misc's ``x.reshape(np.int_(16))``: a graph break). NumPy scalars torch reads otherwise
(``np.bool_`` is a float to ``torch.full``, ``np.int32`` keeps its dtype in ``torch.tensor``) still break."""

import numpy as np
import pytest
import torch
from harness import CaseRegistry, check

from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.arange(3.0)


@case(X)
def reshape_to_a_numpy_int(x):
    return x.repeat(4).reshape(np.int_(12)) * 2


@case(X)
def numpy_ints_as_sizes_fill_values_and_data(x):
    n = np.int64(2)
    return (x + torch.full((n,), np.int64(3)).sum(), torch.zeros(n, 3) + x, torch.tensor(np.int64(5)) + 1,
            x.new_ones(np.int64(4)) * 2)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_numpy_int64_argument(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def full_of_a_numpy_bool(x):
    return torch.full((3,), np.bool_(True)) + x


def tensor_of_a_numpy_int32(x):
    return torch.tensor(np.int32(3)) + x


@pytest.mark.parametrize("fn", [full_of_a_numpy_bool, tensor_of_a_numpy_int32])
def test_other_numpy_scalars_still_break(fn):
    translation = translate_function(fn, X)
    assert translation.breaks and "NumPy" in str(translation.breaks[0])
