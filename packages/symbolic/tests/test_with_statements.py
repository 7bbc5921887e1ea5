"""``with`` over an object whose class lacks ``__enter__`` or ``__exit__``: CPython's TypeError, raised in the
trace so that the program's own handler runs in the same graph (before: a break at ``__enter__``, and an
AttributeError for a missing ``__exit__``, which a handler for AttributeError would have caught)."""

from __future__ import annotations

import pytest
import torch
from harness import check

X = torch.ones(3)


class _LacksEnter:
    def __exit__(self, *args):
        return False


class _LacksExit:
    def __enter__(self):
        return 1


def _message(make):
    try:
        with make():
            return None
    except AttributeError:
        return "AttributeError"
    except TypeError as exc:
        return exc.args


def lacks_enter(x):
    return x + 1, _message(_LacksEnter)


def lacks_exit(x):
    return x + 2, _message(_LacksExit)


def lacks_both(x):
    return x * 2, _message(object)


def builtin_value(x):
    return x - 1, _message(lambda: 5)


@pytest.mark.parametrize("fn", [lacks_enter, lacks_exit, lacks_both, builtin_value])
def test_a_manager_without_the_protocol_raises_eager_s_type_error(fn):
    check(fn, X)
