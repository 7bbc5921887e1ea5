"""``id(obj)`` as dict keys and set members, ``dir(obj)``, and ``del Cls.attr`` inside the compiled function, for
``capture_count.py --only idkeys8``: ids of objects made in the trace, of tensors and of objects passed in
(modules, parameters, plain objects), the ``id(m) in seen`` de-duplication idiom over ``model.modules()`` and
``parameters()``; ``dir()`` of a plain object, a class and a module; a class attribute deleted, then read (a
base's, or the AttributeError). Classes and modules the constructs change are made afresh (``extra_args``).
"""

from __future__ import annotations

import torch


class _Obj:
    pass


def _model():
    model = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU(), torch.nn.Linear(3, 3))
    model[2] = model[0]  # one module (and its parameters) reached twice
    return model


def _classes():
    class Base:
        y = 5

        def m(self):
            return 10

    class Cls(Base):
        y = 7
        z = 1

        def m(self):
            return 20

    class Sub(Cls):
        pass

    return Base, Cls, Sub


_PLAIN = _Obj()
_PLAIN.a = 1
_PLAIN.b = 2


# -- id() as keys ----------------------------------------------------------------------------------------------
def c_idkeys_made_objects(x):
    a = [1]
    b = [2]
    d = {id(a): 1, id(b): 2}
    s = {id(a)}
    return x + d[id(b)] + (id(a) in s)


def c_idkeys_tensors(x):
    y = x + 1
    d = {id(x): 1, id(y): 2}
    s = {id(x)}
    return y + d[id(y)] + (id(x) in s) + (id(y) in s)


def c_idkeys_plain_objects(x, o):
    a = _Obj()
    d = {id(o): x, id(a): x * 2}
    v = d.pop(id(a))
    return v + d.get(id(a), 7) + (id(o) in d) + len(d)


c_idkeys_plain_objects.extra_args = lambda: (_Obj(),)


def c_idkeys_modules_dedup(x, model):
    seen = set()
    out = x
    for m in model.modules():
        if id(m) in seen:
            continue
        seen.add(id(m))
        if isinstance(m, torch.nn.Linear):
            out = m(out)
    return out, len(seen)


c_idkeys_modules_dedup.extra_args = lambda: (_model(),)


def c_idkeys_parameters_dedup(x, model):
    seen = set()
    n = 0
    for p in model.parameters():
        if id(p) not in seen:
            seen.add(id(p))
            n += 1
    uniq = {id(q): q for q in [model[0].weight, model[0].weight, model[2].bias]}
    return x * n + len(uniq)


c_idkeys_parameters_dedup.extra_args = lambda: (_model(),)


def c_idkeys_fixed_objects(x):
    d = {id(None): 1, id(_Obj): 2, id(torch.relu): 3, id(len): 4}
    return x + d[id(_Obj)] + d[id(torch.relu)] + (id(True) in d)


# -- dir() ----------------------------------------------------------------------------------------------------
def c_idkeys_dir_object(x):
    names = [n for n in dir(_PLAIN) if not n.startswith("_")]
    return x + len(names), names


def c_idkeys_dir_class(x, base, cls, sub):
    return x + len(dir(cls)), dir(sub)


c_idkeys_dir_class.extra_args = _classes


def c_idkeys_dir_module(x, model):
    return model(x), "forward" in dir(model), [n for n in dir(model) if not n.startswith("_")]


c_idkeys_dir_module.extra_args = lambda: (_model(),)


def c_idkeys_dir_made_object(x):
    o = _Obj()
    o.made = 1
    return x + ("made" in dir(o)), dir(o)


# -- del Cls.attr ---------------------------------------------------------------------------------------------
def c_idkeys_del_class_attr_base(x, base, cls, sub):
    del cls.y
    return x + cls.y + sub().y, sorted(n for n in vars(cls) if not n.startswith("__"))


c_idkeys_del_class_attr_base.extra_args = _classes


def c_idkeys_del_class_attr_missing(x, base, cls, sub):
    del cls.z
    try:
        return x + cls.z
    except AttributeError as exc:
        return x - 1, str(exc), hasattr(sub(), "z")


c_idkeys_del_class_attr_missing.extra_args = _classes


def c_idkeys_del_class_method(x, base, cls, sub):
    del cls.m
    return x + sub().m(), "m" in dir(cls)


c_idkeys_del_class_method.extra_args = _classes


def c_idkeys_del_stored_class_attr(x, base, cls, sub):
    cls.w = 3
    a = cls.w
    del cls.w
    return x + a + hasattr(cls, "w")


c_idkeys_del_stored_class_attr.extra_args = _classes


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
