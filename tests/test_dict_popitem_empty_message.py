"""``popitem()`` of an empty dict caught in the compiled frame (``variables/dict_methods.py``).

Before, its KeyError carried no known message, so ``str(e)`` in the handler was a graph break; now it carries
the real ``dict.popitem``'s (a defaultdict's too; an OrderedDict's own ``popitem`` says "dictionary is empty").
"""

import collections
import contextlib
import io

import torch

import loom


def _program(x):
    out = []
    for d in ({}, collections.defaultdict(int), collections.OrderedDict()):
        try:
            d.popitem()
        except KeyError as e:
            out.append(str(e))
    return x + len(out), out


def test_empty_popitem_message_known_in_graph():
    x = torch.randn(2)
    want = _program(x)
    loom.reset()
    with contextlib.redirect_stdout(io.StringIO()):
        report = loom.explain(_program)(x)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks
    loom.reset()
    got = loom.compile(_program, backend="eager")(x)
    torch.testing.assert_close(got[0], want[0])
    assert got[1] == want[1]
