"""Dicts, lists and sets modelled on PyTorch's test/dynamo/test_dicts.py, test_list.py and test_sets.py, for
``capture_count.py --only dynamo_tests``: dict subclasses (extra methods, ``__setitem__``, ``__iter__`` and
``keys`` overrides, ``dict.get`` as ``__getattr__``), ``__dict__`` of objects, ``update`` from mapping-likes and
mapping proxies, ``OrderedDict`` reordering, views, list and set methods and their errors, each written afresh
over one tensor.
"""

from __future__ import annotations

import enum
import types
from collections import OrderedDict, UserDict, defaultdict

import torch


class _PlainDict(dict):
    pass


class _UserDictChild(UserDict):
    pass


class _PlusOne(dict):  # returned: made at module level, so eager's and loom's results have one class
    def __setitem__(self, key, value):
        super().__setitem__(key, value + 1)


class _Tagged(dict):
    pass


# -- dicts: subclasses ---------------------------------------------------------------------------------------
def c_dt_dict_subclass_made(x):
    d = _PlainDict(k=4)
    y = d["k"] * x
    d["k"] = 7
    return y * d["k"], type(d).__name__


def c_dt_dict_subclass_own_method(x):
    class Adding(dict):
        def bump(self, t):
            return t + len(self)

    d = Adding(k=2)
    d["j"] = 3
    return d.bump(x * d["k"])


def c_dt_dict_subclass_argument_read(x, d):
    for v in d.values():
        x = x * v
    for k in d:
        x = x + k
    for k, v in d.items():
        x = x - k * v
    d[9] = 1
    return x * d.get(2, 0) * d.get(5, 3) * len(d) * (1 in d), d


c_dt_dict_subclass_argument_read.extra_args = lambda: (_PlainDict({2: 5, 4: 10}),)


def c_dt_dict_subclass_returned(x):
    d = _PlainDict(a=x * 5)
    d["b"] = 10
    return d


def c_dt_dict_subclass_setitem_override(x):
    d = _PlusOne(a=x * 2)
    d["b"] = 10
    d["c"] = x
    return d, dict(d)


def c_dt_dict_subclass_iter_override(x):
    class Backwards(dict):
        def __iter__(self):
            return reversed(list(self.keys()))

    d = Backwards({"p": 1, "q": 2})
    d["r"] = 3
    return x * d["p"] * d["q"], list(d), [k for k in d]


def c_dt_dict_subclass_keys_override(x):
    class OtherKeys(dict):
        def keys(self):
            return ["q", "p"]

    d = OtherKeys({"p": 1, "q": 2})
    return x * d["p"] + d["q"], list(d.keys()), dict(d)


def c_dt_dotdict(x):
    class DotDict(dict):
        __getattr__ = dict.get
        __setattr__ = dict.__setitem__
        __delattr__ = dict.__delitem__

    cfg = DotDict({"a": 2, "b": 3})
    cfg.c = 4
    del cfg.b
    return x * cfg.get("a", 7) * cfg.c, cfg.missing, dict(cfg)


def c_dt_dict_subclass_new_init(x):
    class Made(OrderedDict):
        def __new__(cls, *args, **kwargs):
            return super().__new__(cls, *args, **kwargs)

        def __init__(self, *args, **kwargs):
            super().__init__(*args, **kwargs)

    d = Made()
    d["key"] = x
    assert "key" in d
    return d["key"] + 1


def c_dt_dict_new_of_subclass(x):
    d = dict.__new__(_Tagged)
    d["x"] = x * 2
    if isinstance(d, _Tagged):
        d.tag = 3
    return d, d.tag


def c_dt_userdict_subclass(x):
    d = _UserDictChild({"a": x})
    d["b"] = x + 1
    d.update(c=3)
    return d["a"] + d["b"] * d["c"], len(d), "b" in d, sorted(d), d.get("z", 9)


def c_dt_ordereddict_subclass_keys(x):
    class Keys(OrderedDict):
        def keys(self):
            return super().keys()

    d = Keys()
    d[2] = 4
    d[3] = 5
    d.move_to_end(2)
    y = 0
    for i, v in enumerate(d.values()):
        y = y + (torch.sin(x * v) if i == 0 else torch.cos(x * v))
    return y, list(d.keys())


def c_dt_str_enum_eq(x):
    class Dim(str, enum.Enum):  # noqa: UP042 (the str mixin is the construct)
        DDP = "ddp"
        TP = "tp"

    val = x.sin()
    if Dim.DDP == "ddp":
        val = val + x.cos()
    if "tp" == Dim.TP:
        val = val + 1
    return val, {Dim.DDP: 1}["ddp"]


# -- dicts: __dict__, update, construction -------------------------------------------------------------------
def c_dt_instance_dunder_dict(x):
    class Holder:
        def __init__(self):
            self.a = 3
            self.b = 5

        def run(self, t):
            if "a" in self.__dict__:
                t = t * self.a
            self.c = 7
            if "c" in self.__dict__:
                t = t * self.c
            self.__dict__["d"] = 2
            del self.b
            return t * self.__dict__.get("a") * self.__dict__.get("z", 2) * self.d + len(self.__dict__)

    h = Holder()
    return h.run(x), sorted(h.__dict__)


def c_dt_module_dunder_dict(x):
    class M(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.foo = 2

        def forward(self, t):
            self.__dict__["extra"] = 10
            if "foo" in self.__dict__:
                return t * self.extra + self.__dict__["foo"]
            return t

    return M()(x)


def c_dt_dict_update_no_args_mapping_like(x):
    class Mappingish:
        def __init__(self, t):
            self.d = {"a": t, "b": t + 1}

        def keys(self):
            return self.d.keys()

        def __getitem__(self, key):
            return self.d[key]

    d = {"a": x - 1}
    none = d.update()
    again = d.update(Mappingish(x))
    return d, none is None, again is None


def c_dt_dict_update_mapping_proxy(x):
    src = {"a": x, "b": x + 1}
    d = {"a": x - 1}
    d.update(types.MappingProxyType(src))
    return d, len(types.MappingProxyType(d))


def c_dt_dict_update_errors(x):
    out = []
    try:
        {}.update([(1, 2, 3)])
    except ValueError as e:
        out.append(str(e))
    try:
        {}.update({}, {})
    except TypeError:
        out.append("two")
    try:
        dict([1])
    except TypeError:
        out.append("int")
    return x + len(out), out


def c_dt_dict_from_mapping_like_and_kwargs(x):
    class Fake:
        def __init__(self, v):
            self.v = v
            self.keys = lambda: ["a", "b"]

        def __getitem__(self, key):
            return self.v

    d = dict(Fake(x), c=x + 1)
    return d


def c_dt_ordereddict_update_items_and_moduledict(x):
    mods = OrderedDict([("act", torch.nn.ReLU())])
    more = {"lin": torch.nn.Linear(3, 3), "sig": torch.nn.Sigmoid()}
    mods.update(more.items())
    md = torch.nn.ModuleDict(mods)
    out = x
    for name, m in md.items():
        out = m(out) if name != "lin" else out + 1
    return out, list(mods), list(md)


def c_dt_dict_list_values_zip_count(x):
    import itertools

    d = {"args": [x, x * 2, x * 3]}
    return [t.shape for _, t in zip(itertools.count(), d["args"])], sum(t.sum() for t in d["args"])


def c_dt_dict_mutation_argument_pop(x, d):
    d["c"] = d["a"] + d.pop("b")
    return x + d["c"], d


c_dt_dict_mutation_argument_pop.extra_args = lambda: ({"a": torch.ones(3), "b": torch.ones(3) * 2},)


def c_dt_dict_copy_alias(x, d0):
    d1 = d0.copy()
    d1[0] = 1
    return x + 1, d1, d0


c_dt_dict_copy_alias.extra_args = lambda: ({},)


def c_dt_empty_dict_truth(x, d):
    if d:
        return torch.cos(x)
    return torch.sin(x), not {}, bool({1: 2})


c_dt_empty_dict_truth.extra_args = lambda: ({},)


def c_dt_defaultdict_factory_variants(x):
    d1 = defaultdict(lambda: x * 0)
    d1["a"] = d1["a"] + 1
    d2 = defaultdict(dict)
    d2["k"]["j"] = 2
    d3 = defaultdict(None, {"z": 1})
    try:
        d3["missing"]
    except KeyError:
        pass
    return d1["a"] + d2["k"]["j"], dict(d2), d3.default_factory is None, len(d3)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
