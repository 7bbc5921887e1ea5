"""A class whose attribute hooks are C methods of its builtin base (``__getattr__ = dict.get``,
``__setattr__ = dict.__setitem__``, ``__delattr__ = dict.__delitem__``, the "dotdict" of many configs):
``obj.k = v`` stores an item, ``del obj.k`` deletes one, a missing attribute reads ``dict.get``. The
translator stored such an assignment in the instance ``__dict__`` (a wrong answer: the item was never
set) and broke on the other two; those C methods read unbound are now the dict's own modelled methods."""

import torch
from harness import check


class _DotDict(dict):
    __getattr__ = dict.get
    __setattr__ = dict.__setitem__
    __delattr__ = dict.__delitem__


_GET, _SET = dict.get, dict.__setitem__


def dotdict_made(x):
    cfg = _DotDict({"a": 2, "b": 5})
    cfg.c = 4
    del cfg.b
    return x * cfg.a * cfg.c, cfg.missing, dict(cfg), "c" in cfg, cfg


def dotdict_from_outside(x, cfg):
    cfg.extra = 7
    del cfg.gone
    return x * cfg.scale + cfg.extra, cfg.nothing


def unbound_dict_methods_as_values(x):
    d = {"a": 1}
    _SET(d, "b", 2)
    dict.__delitem__(d, "a")
    return x * _GET(d, "b"), _GET(d, "a"), d


def test_dotdict_made_in_trace_stores_items():
    check(dotdict_made, torch.ones(3))


def test_dotdict_from_outside_stores_items():
    check(dotdict_from_outside, torch.ones(3), _DotDict({"scale": 3, "gone": 1}))


def test_dict_methods_held_in_globals_are_modelled():
    check(unbound_dict_methods_as_values, torch.ones(3))
