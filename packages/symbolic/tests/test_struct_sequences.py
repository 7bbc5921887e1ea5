"""C struct sequences read from the frame (``sys.version_info``, ``sys.float_info``, a ``torch.return_types`` value
passed in) are tuples with named fields in the trace: compared, sliced, indexed and read by field name. They were
opaque objects: ``sys.version_info >= (3, 8)`` was a graph break."""

import sys

import pytest
import torch
from harness import check


def version_checks(x):
    y = x + 1
    newer = sys.version_info >= (3, 8)
    return (y + newer, sys.version_info[:2], sys.version_info.major, sys.version_info.releaselevel,
            tuple(sys.version_info) == sys.version_info, str(sys.version_info), sys.float_info.epsilon > 0,
            len(sys.float_info))


def return_types_argument(x, result):
    return x + result.values, result.indices + 1, result[0] * 2, len(result)


@pytest.mark.parametrize(("fn", "args"), [
    (version_checks, ()),
    (return_types_argument, (torch.max(torch.tensor([[1.0, 5.0], [7.0, 2.0]]), 1),)),
])
def test_struct_sequences_match_eager(fn, args):
    check(fn, torch.arange(2.0), *args)
