"""``types.new_class(name, bases, kwds, exec_body)`` inside a trace (misc9 item 3): ``exec_body`` fills the empty
namespace ``type.__prepare__`` gives (traced), and the class is made as ``type(name, bases, namespace)`` is, its
``__module__`` ``'types'`` as in eager. Before, reading ``type.__prepare__`` broke the graph."""

import types

import pytest
import torch
from breaks_harness import compare


class _Scaled:
    def __init_subclass__(cls, scale=1, **kw):
        super().__init_subclass__(**kw)
        cls.scale = scale


def with_exec_body(x):
    klass = types.new_class("Klass", (object,), exec_body=lambda ns: ns.update({"v": 7}))
    y = x + 1
    return y * klass.v + (klass.__name__ == "Klass"), klass.__module__, klass.__qualname__


def with_a_method(x):
    def body(ns):
        ns["f"] = lambda self, t: t * 3

    klass = types.new_class("K", (), None, body)
    return klass().f(x), klass.__module__


def bare(x):
    klass = types.new_class("K")
    return x + 1, klass.__name__, klass.__bases__


def with_keywords(x):  # handed to a user's __init_subclass__: types.new_class's own code, traced
    klass = types.new_class("K", (_Scaled,), {"scale": 4})
    return x * klass.scale


@pytest.mark.parametrize("fn", [with_exec_body, with_a_method, bare])
def test_the_class_is_made_in_the_graph(fn):
    stats = compare(fn, torch.arange(3.0))
    assert (stats["graphs"], stats["graph_breaks"]) == (1, 0), stats


def test_keywords_keep_eager_behaviour():
    compare(with_keywords, torch.arange(3.0))
