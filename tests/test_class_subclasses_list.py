"""``Cls.__subclasses__()`` of a class read from a global (misc9 item 3, ``cl_init_subclass_kwargs``): the live
subclasses, a new list, guarded by asking again, so a subclass made (or collected) later recompiles. Before,
a break ("it comes from the metaclass")."""

import gc

import torch
from breaks_harness import compare

import loom


class _Registry:
    def __init_subclass__(cls, tag="", **kw):
        super().__init_subclass__(**kw)
        cls.tag = tag


class _Plugin(_Registry, tag="plug"):
    pass


def listed(x):
    found = _Registry.__subclasses__()
    found.append(None)  # a new list each call
    return x * 2 + len(_Plugin.tag) + len(_Registry.__subclasses__()), found


def test_the_subclasses_are_read_in_the_graph():
    stats = compare(listed, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_a_subclass_made_later_recompiles():
    loom.reset()
    compiled = loom.compile(listed, backend="eager")
    assert compiled(torch.arange(3.0))[1] == [_Plugin, None]

    class _Later(_Registry):
        pass

    assert compiled(torch.arange(3.0))[1] == [_Plugin, _Later, None] == listed(torch.arange(3.0))[1]
    del _Later
    gc.collect()
    assert compiled(torch.arange(3.0))[1] == [_Plugin, None]
