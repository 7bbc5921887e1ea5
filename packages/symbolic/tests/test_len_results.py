"""``len(obj)`` checks what ``obj.__len__`` returned as CPython does: a negative length raises ValueError, a
non-integer TypeError, and a bool becomes an int. The trace handed back the raw result (``len()`` gave -1)."""

import pytest
import torch
from harness import check


class _Sized:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


def _length_or_error(x, n):
    y = x + 1
    try:
        got = len(_Sized(n))
    except (ValueError, TypeError) as exc:
        got = type(exc).__name__
    return y, got


@pytest.mark.parametrize("n", [3, -1, True, 2.5, "4", None])
def test_len_checks_the_dunder_result(n):
    check(_length_or_error, torch.ones(3), n)
