"""The builtin ``pow(base, exp)`` on tensors is ``base ** exp`` in the graph (Paddle's SOT test_builtin_dispatch,
issue 29): it was a graph break whenever an argument was not a constant. A modulus stays folded for constants."""

import pytest
import torch
from harness import check

from loom_symbolic import translate_function


def pow_of_tensors_and_numbers(x):
    return pow(x, 2), pow(2, x), pow(x, x + 1), pow(base=x, exp=3), pow(x, 2, None)


def pow_of_constants_with_modulus(x):
    return x + pow(2, 3, 5), pow(3, -1, 7), pow(2.0, -1)


def pow_of_a_size(x):
    return x * pow(x.shape[0], 2)


def test_pow_of_tensors_is_one_graph():
    check(pow_of_tensors_and_numbers, torch.arange(1.0, 4.0))


def test_pow_with_modulus_of_constants_folds():
    check(pow_of_constants_with_modulus, torch.ones(3))


def test_pow_of_a_size():
    check(pow_of_a_size, torch.ones(3))


def _tensor_modulus(x):
    return pow(x, 2, 3)


def test_pow_with_a_tensor_modulus_is_a_break_not_a_wrong_answer():
    translation = translate_function(_tensor_modulus, torch.ones(3))
    assert [b.reason.what for b in translation.breaks] == ["call to pow()"], translation.dump()


def _zero_to_a_negative_power(x):
    try:
        pow(0, -1)
    except ZeroDivisionError as e:
        return x + 1, str(e)
    return x


def test_pow_error_is_eagers():
    with pytest.raises(ZeroDivisionError):
        pow(0, -1)
    check(_zero_to_a_negative_power, torch.ones(3))
