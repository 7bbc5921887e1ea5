"""Side effects on globals after PyTorch's test/dynamo/test_global.py, for ``capture_count.py --only
dynamo_tests_state6``: ``global`` stores that count, rebind or create a name (``test_store_global_*``), items and
attributes of global lists, dicts and objects changed in place, a counter kept on the function itself, a name
counter bumped by an inlined constructor (``test_store_global_inline_*``), globals of another module changed through its functions or as its attributes
(``test_store_global_cross*``, ``test_unregistered_importlib_module_globals``), ``del`` of globals present, absent,
made and deleted in the frame, deleted twice or stored again (``TestDeleteGlobal``), and second calls that see
what the first left (guards must notice). Its part ``_inputs`` holds the rest of the area: inputs, tensor
attributes, closures and objects reconstructed after the graph. Each is written afresh over one tensor; globals
are reset by ``_fresh`` (an ``extra_args`` that adds no argument) before every run.
"""

from __future__ import annotations

import functools
import sys
import types

import torch


@torch._dynamo.disable
def _brk():
    """A break for loom and torch.compile alike (both run a disabled function natively, as one call)."""


_ABSENT = object()
_g_count = 1
_g_scale = 2.0
_g_list = [0, 1, 2]
_g_dict = {"a": 0, "b": 1}
_g_flag = False
_g_gone = 10
_g_pad = 0
_g_name_id = 0
_g_log = []
_g_mode = "add"
_START = {name: value for name, value in globals().items() if name.startswith("_g_")}
_START.update(_g_new=_ABSENT, _g_tensor=_ABSENT)


class _Pair:
    def __init__(self, a, b):
        self.a, self.b = a, b


def _fresh():
    """Puts every global the programs change back to where it starts; adds no argument."""
    namespace = globals()
    for name, value in _START.items():
        namespace.pop(name, None)  # and made again: a name deleted and stored moves to the dict's end
        if value is not _ABSENT:
            namespace[name] = type(value)(value) if isinstance(value, (list, dict)) else value
    namespace.pop("_g_obj", None)
    namespace["_g_obj"] = _Pair(1, 1)
    _MOD.__dict__.update(flag=False, level=3, items=[], doomed=1)
    _MOD.__dict__.pop("made", None)
    _LOOSE.__dict__.update(flag=0)
    return ()


_g_obj = _Pair(1, 1)


def _fresh_tensor():
    _fresh()
    globals()["_g_tensor"] = torch.ones(3)
    return ()


# A module registered in sys.modules whose functions change their own globals, and one that is not registered
# (made as importlib.util.module_from_spec makes one): their globals are not this module's.
_MOD = types.ModuleType("_state6_helpers")
exec(  # a module's source, as a second file would hold it
    """
flag = False
level = 3
items = []
doomed = 1

def set_flag_true():
    global flag
    flag = True

def set_flag_false():
    global flag
    flag = False

def bump(by):
    global level
    level = level + by
    return level

def remember(v):
    items.append(v)
    return len(items)

def make_then_drop():
    global made
    made = 1
    del made

def drop_doomed():
    global doomed
    del doomed
""",
    _MOD.__dict__,
)
sys.modules[_MOD.__name__] = _MOD
_LOOSE = types.ModuleType("_state6_unregistered")
exec(
    """
flag = 0

def store_scale(x, scale):
    global flag
    flag = scale
    return x + flag

def helper(x, scale):
    return x.sin() * scale
""",
    _LOOSE.__dict__,
)


# -- STORE_GLOBAL: counting, rebinding, creating (test_store_global_1/2/new) ---------------------------------
def c_st6_global_counter_bumped(x):
    global _g_count
    val = x + _g_count
    _g_count += 1
    return val, _g_count


c_st6_global_counter_bumped.extra_args = _fresh
c_st6_global_counter_bumped.calls = 2


def c_st6_global_counter_bumped_twice(x):
    global _g_count
    val = x * _g_count
    _g_count += 1
    _g_count += 1
    return val, _g_count


c_st6_global_counter_bumped_twice.extra_args = _fresh
c_st6_global_counter_bumped_twice.calls = 3


def c_st6_global_created_tensor(x):
    global _g_new
    _g_new = x + 1
    return x + _g_new, "_g_new" in globals()


c_st6_global_created_tensor.extra_args = _fresh


def c_st6_global_float_rebound_between_ops(x):
    global _g_scale
    a = x * _g_scale
    _g_scale = _g_scale / 2
    b = x * _g_scale
    return a, b, _g_scale


c_st6_global_float_rebound_between_ops.extra_args = _fresh
c_st6_global_float_rebound_between_ops.calls = 2


def c_st6_global_flag_toggles_branch(x):
    global _g_flag
    _g_flag = not _g_flag
    if _g_flag:
        return x + 1
    return x - 1


c_st6_global_flag_toggles_branch.extra_args = _fresh
c_st6_global_flag_toggles_branch.calls = 3


def c_st6_global_string_selects_op(x):
    global _g_mode
    out = x + 1 if _g_mode == "add" else x * 3
    _g_mode = "mul" if _g_mode == "add" else "add"
    return out, _g_mode


c_st6_global_string_selects_op.extra_args = _fresh
c_st6_global_string_selects_op.calls = 2


def c_st6_global_tensor_rebound_from_graph(x):
    global _g_tensor
    out = x + _g_tensor
    _g_tensor = _g_tensor * 2
    return out, _g_tensor


c_st6_global_tensor_rebound_from_graph.extra_args = _fresh_tensor
c_st6_global_tensor_rebound_from_graph.calls = 2


def c_st6_global_tensor_updated_in_place(x):
    out = x * _g_tensor
    _g_tensor.add_(x)
    return out, _g_tensor.clone()


c_st6_global_tensor_updated_in_place.extra_args = _fresh_tensor
c_st6_global_tensor_updated_in_place.calls = 2


# -- items and attributes of global containers and objects (test_store_global_list/dict/object) --------------
def c_st6_global_list_item_bumped(x):
    val = x + _g_list[1]
    _g_list[1] += 1
    return val, list(_g_list)


c_st6_global_list_item_bumped.extra_args = _fresh
c_st6_global_list_item_bumped.calls = 2


def c_st6_global_list_rebound_by_comprehension(x):
    global _g_list
    val = x + _g_list[1]
    _g_list = [v + 1 for v in _g_list]
    return val, _g_list


c_st6_global_list_rebound_by_comprehension.extra_args = _fresh
c_st6_global_list_rebound_by_comprehension.calls = 2


def c_st6_global_dict_item_bumped(x):
    val = x + _g_dict["b"]
    _g_dict["b"] += 1
    _g_dict.setdefault("c", 5)
    return val, dict(_g_dict)


c_st6_global_dict_item_bumped.extra_args = _fresh
c_st6_global_dict_item_bumped.calls = 2


def c_st6_global_dict_rebound_by_comprehension(x):
    global _g_dict
    _g_dict = {k: v + 1 for k, v in _g_dict.items()}
    return x + _g_dict["b"], _g_dict


c_st6_global_dict_rebound_by_comprehension.extra_args = _fresh
c_st6_global_dict_rebound_by_comprehension.calls = 2


def c_st6_global_object_attribute_bumped(x):
    val = x + _g_obj.b
    _g_obj.b += 1
    _g_obj.c = val.sum()
    return val, _g_obj.b, _g_obj.c


c_st6_global_object_attribute_bumped.extra_args = _fresh
c_st6_global_object_attribute_bumped.calls = 2


def c_st6_global_list_appended_tensor(x):
    _g_log.append(x.sum())
    return x * len(_g_log), len(_g_log)


c_st6_global_list_appended_tensor.extra_args = _fresh
c_st6_global_list_appended_tensor.calls = 2


def _fresh_counted():
    _fresh()
    c_st6_counter_kept_on_the_function.__dict__.pop("hits", None)
    return ()


def c_st6_counter_kept_on_the_function(x):
    c_st6_counter_kept_on_the_function.hits = getattr(c_st6_counter_kept_on_the_function, "hits", 0) + 1
    return x + c_st6_counter_kept_on_the_function.hits


c_st6_counter_kept_on_the_function.extra_args = _fresh_counted
c_st6_counter_kept_on_the_function.calls = 3


# -- a counter bumped by an inlined constructor (test_store_global_inline_1/2) --------------------------------
def _next_name():
    global _g_name_id
    name = f"v{_g_name_id}"
    _g_name_id += 1
    return name


class _Named:
    def __init__(self, value, name=None):
        self.value = value
        self.name = name or _next_name()

    @staticmethod
    def of(value, name=None):
        return _Named(value, name)


def c_st6_inlined_init_bumps_name_counter(x):
    a = _Named(x)
    b = _Named(x * 2)
    return a.value + b.value, a.name + b.name


c_st6_inlined_init_bumps_name_counter.extra_args = _fresh
c_st6_inlined_init_bumps_name_counter.calls = 2


def c_st6_static_factory_bumps_name_counter(x):
    a = _Named.of(x)
    b = _Named.of(x, "fixed")
    c = _Named.of(x + 1)
    return a.value + c.value, a.name + b.name + c.name, _g_name_id


c_st6_static_factory_bumps_name_counter.extra_args = _fresh


# -- another module's globals (test_store_global_cross_file, _crossfile_inline, unregistered modules) ---------
def c_st6_other_module_flag_set_then_cleared(x):
    _MOD.set_flag_true()
    seen = _MOD.flag
    _MOD.set_flag_false()
    return x + 1, seen, _MOD.flag


c_st6_other_module_flag_set_then_cleared.extra_args = _fresh


def c_st6_other_module_flag_decides_branch(x):
    _MOD.set_flag_true()
    if _MOD.flag:
        return x * 2
    return x


c_st6_other_module_flag_decides_branch.extra_args = _fresh


def c_st6_other_module_attribute_stored(x):
    val = x + _MOD.level
    _MOD.level = _MOD.level + 1
    return val, _MOD.level


c_st6_other_module_attribute_stored.extra_args = _fresh
c_st6_other_module_attribute_stored.calls = 2


def c_st6_other_module_global_bumped_by_its_function(x):
    first = _MOD.bump(2)
    return x * first + _MOD.level, _MOD.level


c_st6_other_module_global_bumped_by_its_function.extra_args = _fresh
c_st6_other_module_global_bumped_by_its_function.calls = 2


def c_st6_other_module_list_grown(x):
    n = _MOD.remember(x.sum())
    n = _MOD.remember(3)
    return x + n, len(_MOD.items)


c_st6_other_module_list_grown.extra_args = _fresh


def c_st6_other_module_attribute_created_then_deleted(x):
    _MOD.made = x + 1
    out = x + _MOD.made
    del _MOD.made
    return out, hasattr(_MOD, "made")


c_st6_other_module_attribute_created_then_deleted.extra_args = _fresh


def c_st6_unregistered_module_partial_reads(x):
    fn = functools.partial(_LOOSE.helper, scale=2)
    return fn(x)


def c_st6_unregistered_module_global_stored(x):
    fn = functools.partial(_LOOSE.store_scale, scale=2)
    return fn(x), _LOOSE.flag


c_st6_unregistered_module_global_stored.extra_args = _fresh


# -- DELETE_GLOBAL (TestDeleteGlobal) --------------------------------------------------------------------------
def c_st6_del_global_present(x):
    global _g_gone
    del _g_gone
    return x + 1, "_g_gone" in globals()


c_st6_del_global_present.extra_args = _fresh


def c_st6_del_global_absent_raises(x):
    global _g_new
    del _g_new
    return x + 1


c_st6_del_global_absent_raises.extra_args = _fresh


def _drop_new():
    global _g_new
    del _g_new


def c_st6_del_global_absent_caught_by_caller(x):
    try:
        _drop_new()
    except NameError as e:
        return x + 2, str(e)
    return x + 1, ""


c_st6_del_global_absent_caught_by_caller.extra_args = _fresh


def c_st6_global_created_then_deleted(x):
    global _g_new
    _g_new = 1
    del _g_new
    return x + 1, "_g_new" in globals()


c_st6_global_created_then_deleted.extra_args = _fresh


def c_st6_global_deleted_twice_caught(x):
    global _g_gone
    del _g_gone
    try:
        del _g_gone
    except NameError:
        return x * 3, "_g_gone" in globals()
    return x, True


c_st6_global_deleted_twice_caught.extra_args = _fresh


def c_st6_global_deleted_then_stored_moves_last(x):
    global _g_gone
    del _g_gone
    _g_gone = 7
    names = list(globals())
    return x + _g_gone, names.index("_g_gone") > names.index("_g_pad")


c_st6_global_deleted_then_stored_moves_last.extra_args = _fresh


def c_st6_del_global_presence_flips(x):
    global _g_gone
    y = x + 1
    try:
        del _g_gone
    except NameError:
        y = y + 1
    return y


c_st6_del_global_presence_flips.extra_args = _fresh
c_st6_del_global_presence_flips.calls = 2


def c_st6_del_global_tensor(x):
    global _g_tensor
    out = x + _g_tensor
    del _g_tensor
    return out, "_g_tensor" in globals()


c_st6_del_global_tensor.extra_args = _fresh_tensor


def c_st6_other_module_deletes_own_global(x):
    _MOD.drop_doomed()
    return x + 1, hasattr(_MOD, "doomed")


c_st6_other_module_deletes_own_global.extra_args = _fresh


def c_st6_other_module_made_then_dropped(x):
    _MOD.make_then_drop()
    return x + 1, "made" in _MOD.__dict__


c_st6_other_module_made_then_dropped.extra_args = _fresh


def c_st6_globals_dict_store_then_read(x):
    globals()["_g_new"] = x * 2
    return x + _g_new, sorted(k for k in globals() if k == "_g_new")


c_st6_globals_dict_store_then_read.extra_args = _fresh


def c_st6_global_read_after_break(x):
    global _g_count
    _g_count = 5
    y = x + _g_count
    _brk()
    _g_count += 1
    return y * _g_count, _g_count


c_st6_global_read_after_break.extra_args = _fresh


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
