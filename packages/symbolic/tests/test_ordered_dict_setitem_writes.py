"""OrderedDict's C ``__init__``, ``update``, ``|=`` and ``|`` store each item with ``od[key] = value``, so a subclass's
Python ``__setitem__`` (a ``ModelOutput``'s, which also sets the attribute) runs for every item; dict's own writers
(``dict.update(od, ...)``, ``move_to_end``) do not. The trace stored them in the dict layer (a wrong answer), and
``od | other`` was a break. ``polyfills.collections.ordereddict_update`` is tested against the real method."""

import collections
import dataclasses

import pytest
import torch
from harness import check

from loom_symbolic.polyfills import collections as stand_ins

X = torch.arange(3.0)


class _Doubling(collections.OrderedDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value * 2)


class _Output(collections.OrderedDict):
    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)


@dataclasses.dataclass
class _LM(_Output):
    logits: torch.Tensor = None
    loss: torch.Tensor = None

    def __post_init__(self):
        for f in dataclasses.fields(self):
            if getattr(self, f.name) is not None:
                self[f.name] = getattr(self, f.name)


def init_and_update(x):
    od = _Doubling({"a": x}, b=x + 1)
    od.update([("c", x * 3)], d=x - 1)
    od |= {"e": x}
    return list(od.items())


def dict_layer_writers(x):
    od = _Doubling(a=x)
    dict.update(od, {"a": x + 10})
    od.update(z=x)
    od.move_to_end("a")
    od.move_to_end("z", last=False)
    return list(od.items())


def union_keeps_the_class(x):
    out = _LM(logits=x) | {"loss": x.sum()}
    plain = collections.OrderedDict(k=x) | {"m": x + 1}
    left_plain = {"p": x} | collections.OrderedDict(q=x * 2)
    return type(out).__name__, out.loss, dict(out), [(type(d).__name__, list(d.items())) for d in (plain, left_plain)]


def output_updated_in_place(x):
    out = _LM(logits=x)
    out |= {"loss": x.mean()}
    out.update(logits=x * 2)
    return out.loss, out.logits, list(out.keys())


@pytest.mark.parametrize("fn", [init_and_update, dict_layer_writers, union_keeps_the_class, output_updated_in_place])
def test_ordered_dict_writes(fn):
    check(fn, X)


@pytest.mark.parametrize("argument", [{"a": 1, "b": 2}, collections.OrderedDict(c=3), [("d", 4)], (), [[5, 6]],
                                      [()], [(1,)], [(1, 2, 3)], [7], 8])
def test_update_stand_in_matches_the_real_method(argument):
    def outcome(update):
        od = _Doubling(x=0)
        try:
            update(od, argument, k=9)
        except (TypeError, ValueError) as exc:
            return type(exc), str(exc), list(od.items())
        return list(od.items())

    assert outcome(stand_ins.ordereddict_update) == outcome(collections.OrderedDict.update)


class _Logged(collections.OrderedDict):
    def __init__(self, *args, **kwargs):
        self.log = []
        super().__init__(*args, **kwargs)

    def __getitem__(self, key):
        self.log.append(("get", key))
        return super().__getitem__(key)

    def __contains__(self, key):
        self.log.append(("in", key))
        return super().__contains__(key)


def setdefault_asks_the_subclass(x):
    d = _Logged(a=x)
    first, second = d.setdefault("a", x * 5), d.setdefault(key="b", default=x + 1)
    return first, second, d.log, list(d)


def merges_read_by_key(x):
    # an OrderedDict's iteration is not dict's: dict's merge reads keys() and d[key], through a Python __getitem__
    d = _Logged(a=x, b=x + 1)
    copied, spread = dict(d), {**d}
    plain = {}
    plain.update(d)

    def keywords(**kw):
        return kw

    return copied, spread, plain, keywords(**d), d.log


@pytest.mark.parametrize("fn", [setdefault_asks_the_subclass, merges_read_by_key])
def test_ordered_dict_reads(fn):
    check(fn, X)
