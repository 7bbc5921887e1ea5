"""A method of ``type`` itself read from a class (``Cls.__subclasses__()``, ``Cls.mro()``), which the
translator does not model: the read runs no Python (the class's metaclass is ``type`` and no class of its MRO
holds the name), so it waits for its call, where the graph splits as at any call. Before, the break fell on
the method read itself, where a graph cannot split, and the whole frame ran uncompiled."""

import torch
from harness import assert_same, run_rewritten

from loom_symbolic import translate_function


class Base:
    pass


class Child(Base):
    pass


def subclasses_read(x):
    y = x * 2
    # (Child.mro() is traced since: polyfills.introspection.TYPE_METHODS; type.__or__ is not modelled)
    return y + len(Base.__subclasses__()) + len(Child.mro()) + (Child.__or__(int) is not None)


def test_type_method_read_breaks_at_its_call():
    x = torch.arange(3.0)
    translation = translate_function(subclasses_read, x)
    assert translation.code is not None, translation.dump()
    assert len(translation.graphs) == 1 and len(translation.breaks) == 1, translation.dump()
    assert "__or__" in str(translation.breaks[0])
    assert_same(run_rewritten(subclasses_read, translation, (x,), {}), subclasses_read(x))
