"""Stores and deletions of module globals, every road to them (PyTorch's test/dynamo/test_global.py): an
inlined function of another module that assigns or deletes its own globals (``global flag; flag = True``),
``module.name = value`` / ``del module.name`` on a Python module, and ``globals()[name] = value``. Each is
recorded once and seen by every later read in the trace, through ``LOAD_GLOBAL`` in the module's functions
and through attribute reads of the module alike, and replayed after the graph: one graph, no break. A
missing global's ``NameError`` carries CPython's message and ``name``; ``del`` of a name that is only a
builtin raises it too. The module's ``__dict__`` read after such a store is read by name through the trace's
changes; a store after the dict was read (a copy the trace holds) is a break."""

from __future__ import annotations

import sys
import types

import pytest
import torch

import loom

_SOURCE = '''
flag = False
value = 1
counter = 0


def set_flag(v):
    global flag
    flag = v


def read_flag():
    return flag


def bump():
    global counter
    counter += 1
    return counter


def drop_value():
    global value
    del value


def drop_then_store():
    global value
    del value
    value = 7
'''


def _module(name: str) -> types.ModuleType:
    module = types.ModuleType(name)
    exec(_SOURCE, module.__dict__)
    sys.modules[name] = module
    return module


other = _module("loom_test_module_globals_other")
_STATE = {"flag": False, "value": 1, "counter": 0}


def _reset():
    for name in _STATE:
        other.__dict__.pop(name, None)
    other.__dict__.update(_STATE)


def _compiled_against_eager(fn, *args, graphs=1, breaks=0):
    """Runs ``fn`` eagerly and under loom from the same module state: same answer, same state after."""
    _reset()
    expected = fn(*args)
    state = {name: other.__dict__.get(name, "<absent>") for name in _STATE}
    _reset()
    loom.reset()
    actual = loom.compile(fn, backend="eager", options={"strict": True})(*args)
    assert {name: other.__dict__.get(name, "<absent>") for name in _STATE} == state
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"]) == (graphs, breaks), stats
    return actual, expected


def inlined_function_sets_its_global(x):
    other.set_flag(True)
    seen_by_attribute = other.flag
    seen_by_its_function = other.read_flag()
    other.set_flag(False)
    return x + 1, seen_by_attribute, seen_by_its_function, other.flag


def attribute_store_seen_by_its_functions(x):
    other.flag = True
    return (x * 2 if other.read_flag() else x), other.flag


def inlined_bump_twice(x):
    a = other.bump()
    b = other.bump()
    return x + a + b, other.counter


def inlined_delete_then_attribute_read(x):
    other.drop_value()
    return x + 1, hasattr(other, "value")


def inlined_delete_then_store(x):
    other.drop_then_store()
    return x + other.value


def attribute_delete(x):
    del other.value
    return x - 1, getattr(other, "value", "gone")


@pytest.mark.parametrize("fn", [inlined_function_sets_its_global, attribute_store_seen_by_its_functions,
                                inlined_bump_twice, inlined_delete_then_attribute_read, inlined_delete_then_store,
                                attribute_delete])
def test_another_modules_globals_change_in_one_graph(fn):
    actual, expected = _compiled_against_eager(fn, torch.arange(3.0))
    torch.testing.assert_close(actual[0] if isinstance(actual, tuple) else actual,
                               expected[0] if isinstance(expected, tuple) else expected)
    assert repr(actual) == repr(expected)


def inlined_delete_of_missing_global(x):
    y = x + 1
    try:
        other.drop_value()
    except NameError as e:
        return y * 3, str(e), e.name
    return y


def test_missing_global_deleted_in_another_module_raises_name_error():
    _reset()
    del other.value
    expected = inlined_delete_of_missing_global(torch.arange(3.0))
    loom.reset()
    actual = loom.compile(inlined_delete_of_missing_global, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert repr(actual) == repr(expected)
    assert expected[1:] == ("name 'value' is not defined", "value")
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0)


def module_dict_after_store(x):
    other.flag = True
    other.drop_value()
    d = other.__dict__
    return x + 1, d["flag"], "value" in d, d.get("value", "gone"), d.get("counter")


def module_dict_before_store(x):
    d = other.__dict__
    other.flag = True
    return x + 1, d["flag"]


def test_module_dict_after_a_store_reads_the_trace_s_changes():
    actual, expected = _compiled_against_eager(module_dict_after_store, torch.arange(3.0))
    assert repr(actual) == repr(expected)
    assert expected[1:] == (True, False, "gone", 0)


def test_store_after_the_module_dict_was_read_is_shown_in_it():
    # (the dict variable shows the store, as object_dicts keeps an object's __dict__ views: was a break)
    actual, expected = _compiled_against_eager(module_dict_before_store, torch.arange(3.0), graphs=1, breaks=0)
    assert repr(actual) == repr(expected) and expected[1] is True


def test_exec_globals_stay_a_break():
    namespace = {"__name__": "loom_test_not_a_module"}
    exec("def put(v):\n    global slot\n    slot = v\n", namespace)
    put = namespace["put"]

    def fn(x):
        put(3)
        return x + 1

    loom.reset()
    out = loom.compile(fn, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert namespace["slot"] == 3 and torch.equal(out, torch.arange(3.0) + 1)
    assert loom.stats()["graph_breaks"] >= 1


# -- the frame's own globals --------------------------------------------------------------------------------------
g_counter = 1


def missing_global_caught(x):
    y = x.cos()
    try:
        y = y + g_never_defined
    except NameError as e:
        return y, str(e), e.name, e.args
    return y


def globals_item_store(x):
    globals()["g_counter"] = 5
    return x + g_counter, globals()["g_counter"]


def globals_item_delete(x):
    global g_counter
    del globals()["g_counter"]
    present = "g_counter" in globals()
    g_counter = 2
    return x + g_counter, present


def delete_builtin_name(x):
    global abs
    y = x + 1
    try:
        del abs  # abs is a builtin, no global: Python raises NameError
    except NameError as e:
        return y * 2, str(e)
    return y


@pytest.mark.parametrize("fn", [missing_global_caught, globals_item_store, globals_item_delete, delete_builtin_name])
def test_own_globals_in_one_graph(fn):
    global g_counter
    g_counter = 1
    expected = fn(torch.arange(3.0))
    after = g_counter
    g_counter = 1
    loom.reset()
    actual = loom.compile(fn, backend="eager", options={"strict": True})(torch.arange(3.0))
    assert repr(actual) == repr(expected) and g_counter == after
    assert (loom.stats()["graphs"], loom.stats()["graph_breaks"]) == (1, 0), loom.stats()
