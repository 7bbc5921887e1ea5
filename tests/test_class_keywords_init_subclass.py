"""Class statements with keywords (``class Local(Base, scale=5)``) and bases with a user's ``__init_subclass__``
inside a trace (misc9 item 3): where every user hook only writes its arguments into the new class, the class
is made while tracing, as a plain class is (``opcodes/class_hooks.py``); a hook acting elsewhere (a registry,
a call), one storing its ``**kwargs`` (a dict made per call), a ``metaclass=`` other than ``type`` and keywords
no hook takes stay one break at the statement, with eager's behaviour."""

import pytest
import torch
from breaks_harness import compare


class _Scaled:
    def __init_subclass__(cls, scale=1, **kw):
        super().__init_subclass__(**kw)
        cls.scale = scale

class _Named(_Scaled):
    def __init_subclass__(cls, label="x", **kw):
        super().__init_subclass__(**kw)
        cls.label = label

class _Registered:
    registry = []
    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        _Registered.registry.append(cls.__name__)

class _StoresKw:
    def __init_subclass__(cls, **kw):
        cls.kw = kw

class _Calls:
    def __init_subclass__(cls, cb=print, **kw):
        cb("hi")

def kw_class(x):
    class Local(_Scaled, scale=5):
        pass
    return x * Local.scale

def two_hooks(x):
    class Local(_Named, scale=2, label="lab"):
        def m(self): return 3
    return x * Local.scale + len(Local.label) + Local().m()

def no_kw(x):
    class Local(_Named):
        pass
    return x * Local.scale, Local.label

def registered(x):
    class Local(_Registered):
        pass
    r = x + len(_Registered.registry)
    _Registered.registry.remove("Local")
    return r

def stores_kw(x):
    class Local(_StoresKw, a=1):
        pass
    return x + Local.kw["a"]

def calls(x):
    class Local(_Calls, cb=len):
        pass
    return x + 1

def bad_kw(x):
    try:
        class Local(zz=1):
            pass
    except TypeError as e:
        return x, str(e)
    return x

def dtype_and_classes_kw(x):
    # keywords that are one object on every call: a dtype, a class, a tuple of classes
    class Local(_Named, scale=torch.float64, label=(int, float)):
        pass
    return x.to(Local.scale), [kind.__name__ for kind in Local.label]

def meta(x):
    class Local:
        pass
    return x + 1, Local.__name__



@pytest.mark.parametrize("fn", [kw_class, two_hooks, no_kw, meta, dtype_and_classes_kw])
def test_the_class_is_made_in_the_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


@pytest.mark.parametrize("fn", [registered, stores_kw, calls, bad_kw])
def test_a_hook_acting_elsewhere_stays_a_break(fn):
    stats = compare(fn, torch.arange(3.0))
    assert stats["graph_breaks"] == 1, stats
