"""``inspect.Signature.bind`` while tracing makes a ``BoundArguments`` the program may change (edit
``arguments``, ``apply_defaults``): it is traced as an object made while tracing, not folded into a
frozen copy that drops the changes (issue 29, PyTorch test_misc's ``bound.arguments["d"] = 13``: loom
answered with the old value)."""

import inspect

import pytest
import torch
from harness import CaseRegistry, check

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


def target(a, b, *rest, c=10, d=11, **extra):
    return a


SIGNATURE = inspect.signature(target)


@case(X)
def edits_to_arguments_are_kept(x):
    bound = inspect.signature(target).bind(1, 2, 3, d=12, e=15)
    bound.arguments["d"] = 13
    return x + 1, dict(bound.arguments), bound.args, bound.kwargs


@case(X)
def apply_defaults_fills_the_traced_object(x):
    bound = SIGNATURE.bind_partial(1, e=2)
    before = dict(bound.arguments)
    bound.apply_defaults()
    return x + len(bound.arguments), before, dict(bound.arguments)


@case(X)
def the_bound_arguments_leave_the_frame(x):
    bound = SIGNATURE.bind(1, 2)
    bound.arguments["b"] = 5
    return x + bound.args[1], bound, type(bound).__name__


@case(X)
def arguments_is_one_object(x):
    bound = SIGNATURE.bind(1, 2)
    args = bound.arguments
    args["c"] = 3
    return x + 1, bound.arguments is args, bound.kwargs


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_signature_bind(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)
