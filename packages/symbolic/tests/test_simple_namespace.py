"""``types.SimpleNamespace``: made while tracing (a stand-in, rebuilt as a real one when it leaves the
frame) and handed in (its attributes stored like any object's: its ``__setattr__`` is the generic one).
Both were graph breaks ("the class defines __new__", "the class customises __setattr__")."""

import types

import torch
from harness import check


def made_in_the_trace(x):
    ns = types.SimpleNamespace(scale=2, shift=1)
    ns.extra = 3
    same = types.SimpleNamespace(scale=2, shift=1, extra=3)
    return (x * ns.scale + ns.shift + ns.extra, ns, repr(ns), ns == same, ns != same,
            isinstance(ns, types.SimpleNamespace), type(ns).__name__, vars(ns))


def test_namespace_made_in_the_trace():
    check(made_in_the_trace, torch.ones(3))


def handed_in(x, cfg):
    cfg.calls = getattr(cfg, "calls", 0) + 1
    return x * cfg.width


def test_namespace_handed_in_is_updated():
    check(handed_in, torch.ones(3), types.SimpleNamespace(width=3))


def positional_mapping(x):
    try:
        ns = types.SimpleNamespace({"a": 1})  # 3.13 takes it; 3.11 and 3.12 raise TypeError
    except TypeError as exc:
        return x + 1, str(exc)
    return x + ns.a, vars(ns)


def test_positional_mapping_as_the_running_python():
    check(positional_mapping, torch.ones(3), graphs=None)
