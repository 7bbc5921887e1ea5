"""``global name; name = value`` in inlined code of another module than the frame's.

``torch.nn.utils.parametrize.cached()`` counts its users in a module global (``_cache_enabled += 1``); such a
store was a graph break ("assigning a global of another module"). It is now an attribute store on that
module, replayed after the graph, and later reads of the global in the trace see the stored value."""

import sys
import types

import torch
from torch import nn
from torch.nn.utils import parametrize

import loom


def _compiled(fn):
    loom.reset()
    return loom.compile(fn, backend="eager", options={"strict": True})


def _counts():
    stats = loom.stats()
    return stats["graphs"], stats["graph_breaks"]


_COUNTER = types.ModuleType("loom_test_counter_module")
exec("count = 0\n\ndef bump():\n    global count\n    count += 1\n    return count\n", _COUNTER.__dict__)
sys.modules[_COUNTER.__name__] = _COUNTER


def bumps_twice(x):
    return x + _COUNTER.bump() * 10 + _COUNTER.bump()


def test_a_global_stored_by_another_module_is_read_back_and_replayed():
    x = torch.arange(3.0)
    _COUNTER.count = 0
    expected = bumps_twice(x)
    _COUNTER.count = 0
    torch.testing.assert_close(_compiled(bumps_twice)(x), expected)
    assert _COUNTER.count == 2
    assert _counts() == (1, 0)


class Symmetric(nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = []

    def forward(self, w):
        self.calls.append(1)
        return w.triu() + w.triu(1).transpose(-1, -2)


def _symmetric_linear():
    torch.manual_seed(0)
    lin = nn.Linear(3, 3)
    parametrize.register_parametrization(lin, "weight", Symmetric())
    return lin


def cached_weight_used_twice(x, lin):
    with parametrize.cached():
        y = lin(x) + lin(x * 2)
    return y.sigmoid()


def test_parametrize_cached_computes_the_weight_once_in_one_graph():
    x = torch.arange(3.0)
    eager_lin, loom_lin = _symmetric_linear(), _symmetric_linear()
    expected = cached_weight_used_twice(x, eager_lin)
    actual = _compiled(cached_weight_used_twice)(x, loom_lin)
    torch.testing.assert_close(actual, expected)
    symmetric = loom_lin.parametrizations.weight[0]
    assert symmetric.calls == eager_lin.parametrizations.weight[0].calls == [1, 1]  # registration, then once
    assert parametrize._cache_enabled == 0 and parametrize._cache == {}
    assert _counts() == (1, 0)


def bumps_then_reads_the_module_attribute(x):
    _COUNTER.bump()
    return x + _COUNTER.count


def test_the_frame_reads_the_stored_global_as_the_module_attribute():
    x = torch.arange(3.0)
    _COUNTER.count = 0
    torch.testing.assert_close(_compiled(bumps_then_reads_the_module_attribute)(x), x + 1)
    assert _COUNTER.count == 1
    assert _counts() == (1, 0)


def test_the_entry_holds_only_while_the_library_global_starts_as_traced():
    x = torch.arange(3.0)
    lin = _symmetric_linear()
    compiled = _compiled(cached_weight_used_twice)
    compiled(x, lin)
    with parametrize.cached():  # an outer cache around the compiled frame: the count starts at 1
        expected = cached_weight_used_twice(x, lin)
        torch.testing.assert_close(compiled(x, lin), expected)
        assert parametrize._cache_enabled == 1 and parametrize._cache  # the outer context still caches
    assert parametrize._cache_enabled == 0 and parametrize._cache == {}
    assert loom.stats()["recompiles"] == 1


# A module under a standard-library package: its globals are read unguarded, as torch's are.
_TRUSTED = types.ModuleType("collections.loom_test_counter")
exec("count = 0\n\ndef bump():\n    global count\n    count += 1\n    return count\n", _TRUSTED.__dict__)
sys.modules[_TRUSTED.__name__] = _TRUSTED


def bumps_a_library_global(x):
    return x + _TRUSTED.bump()


def test_a_library_global_that_starts_elsewhere_is_not_replayed_from_the_trace():
    x = torch.arange(3.0)
    _TRUSTED.count = 0
    compiled = _compiled(bumps_a_library_global)
    torch.testing.assert_close(compiled(x), x + 1)
    _TRUSTED.count = 5
    torch.testing.assert_close(compiled(x), x + 6)
    assert _TRUSTED.count == 6
