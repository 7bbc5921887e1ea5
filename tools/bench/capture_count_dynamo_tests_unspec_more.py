"""Module globals in the manner of PyTorch's test/dynamo/test_global.py, for ``capture_count.py --only
dynamo_tests_unspec``: ``global`` statements that bump, create, rebind and delete names (missing names
raising ``NameError``, caught here or in a caller), globals holding lists, dicts, objects, tensors, classes
and partials, functions that write their own module's globals when inlined, another module's globals read
and written as attributes, and ``globals()`` itself. Each program's ``extra_args`` sets the globals it
touches afresh (so eager and the compilers start from the same module state) and hands nothing in.
"""

from __future__ import annotations

import functools

import capture_count_dynamo_tests_unspec as _other
import torch


class _Pair:
    def __init__(self, x, y):
        self.x = x
        self.y = y


_ABSENT = object()
_G = globals()


def _afresh(**names):
    """An ``extra_args`` that sets (or, with ``_ABSENT``, removes) the named globals and hands in nothing."""
    def made():
        for name, value in names.items():
            _G.pop(name, None) if value is _ABSENT else _G.__setitem__(name, value() if callable(value) else value)
        return ()
    return made


g_counter = 1
g_list = [0, 1, 2]
g_dict = {"a": 0, "b": 1}
g_object = _Pair(1, 1)
g_tensor = torch.zeros(3)
_name = 0


def _fresh_name():
    global _name
    r = f"v{_name}"
    _name += 1
    return r


# -- STORE_GLOBAL and friends -----------------------------------------------------------------------------------
def c_du_global_counter_bumped(x):
    global g_counter
    val = x + g_counter
    g_counter += 1
    return val, g_counter


c_du_global_counter_bumped.extra_args = _afresh(g_counter=1)


def c_du_global_counter_bumped_twice(x):
    global g_counter
    val = x + g_counter
    g_counter += 1
    g_counter += 1
    return val * g_counter


c_du_global_counter_bumped_twice.extra_args = _afresh(g_counter=1)
c_du_global_counter_bumped_twice.calls = 2


def c_du_global_created(x):
    global g_counter_new
    g_counter_new = x + 1
    return x + g_counter_new, "g_counter_new" in globals()


c_du_global_created.extra_args = _afresh(g_counter_new=_ABSENT)


def c_du_global_list_item_bumped(x):
    val = x + g_list[1]
    g_list[1] += 1
    return val, g_list


c_du_global_list_item_bumped.extra_args = _afresh(g_list=lambda: [0, 1, 2])


def c_du_global_list_rebound(x):
    global g_list
    val = x + g_list[1]
    g_list = [v + 1 for v in g_list]
    return val + g_list[1], g_list


c_du_global_list_rebound.extra_args = _afresh(g_list=lambda: [0, 1, 2])


def c_du_global_dict_item_bumped(x):
    val = x + g_dict["b"]
    g_dict["b"] += 1
    return val, g_dict


c_du_global_dict_item_bumped.extra_args = _afresh(g_dict=lambda: {"a": 0, "b": 1})


def c_du_global_dict_rebound(x):
    global g_dict
    g_dict = {key: value + 1 for key, value in g_dict.items()}
    return x + g_dict["b"], g_dict


c_du_global_dict_rebound.extra_args = _afresh(g_dict=lambda: {"a": 0, "b": 1})


def c_du_global_object_attribute_bumped(x):
    val = x + g_object.y
    g_object.y += 1
    return val, g_object.y


c_du_global_object_attribute_bumped.extra_args = _afresh(g_object=lambda: _Pair(1, 1))


def c_du_global_tensor_rebound(x):
    global g_tensor
    g_tensor = g_tensor + x
    return g_tensor * 2, g_tensor


c_du_global_tensor_rebound.extra_args = _afresh(g_tensor=lambda: torch.zeros(3))


def c_du_global_tensor_mutated_in_place(x):
    g_tensor.add_(x)
    return x + g_tensor, g_tensor.clone()


c_du_global_tensor_mutated_in_place.extra_args = _afresh(g_tensor=lambda: torch.zeros(3))


def c_du_global_rebound_then_reread(x):
    global g_counter
    a = x + g_counter
    g_counter = 10
    return a + g_counter, g_counter


c_du_global_rebound_then_reread.extra_args = _afresh(g_counter=1)


def _bump_counter():
    global g_counter
    g_counter += 1
    return g_counter


def c_du_global_bumped_by_helper_in_loop(x):
    out = x
    for _ in range(3):
        out = out + _bump_counter()
    return out, g_counter


c_du_global_bumped_by_helper_in_loop.extra_args = _afresh(g_counter=1)


def c_du_global_read_after_helper_rebinds(x):
    before = g_counter
    _bump_counter()
    return x * before + g_counter


c_du_global_read_after_helper_rebinds.extra_args = _afresh(g_counter=1)


def c_du_globals_dict_written(x):
    globals()["g_counter"] = 5
    return x + g_counter, globals()["g_counter"]


c_du_globals_dict_written.extra_args = _afresh(g_counter=1)


def c_du_globals_dict_get_missing(x):
    g = globals()
    return x + g.get("g_missing_name", 3), "g_missing_name" in g


g_function = torch.sin


def c_du_global_function_rebound(x):
    global g_function
    a = g_function(x)
    g_function = torch.cos
    return a + g_function(x)


c_du_global_function_rebound.extra_args = _afresh(g_function=lambda: torch.sin)


g_class = _Pair


def c_du_global_class_instantiated(x):
    p = g_class(x, 2)
    return p.x * p.y, type(p) is _Pair


def c_du_global_tuple_of_tensors(x):
    a, b = g_tensors
    return x + a - b, len(g_tensors)


g_tensors = (torch.ones(3), torch.full((3,), 2.0))


# -- globals written by inlined functions ----------------------------------------------------------------------
class _Variable:
    def __init__(self, value, name=None):
        self.value = value
        self.name = name or _fresh_name()

    @staticmethod
    def constant(value, name=None):
        return _Variable(value, name)


def c_du_fresh_name_in_init(x):
    a = _Variable(x)
    b = _Variable(x * 2)
    return a.value + b.value, a.name + b.name


c_du_fresh_name_in_init.extra_args = _afresh(_name=0)


def c_du_fresh_name_via_staticmethod(x):
    a = _Variable.constant(x)
    b = _Variable.constant(x + 1, "given")
    return a.value + b.value, a.name + b.name


c_du_fresh_name_via_staticmethod.extra_args = _afresh(_name=0)


def _scaled_sin(x, scale):
    return x.sin() * scale


g_partial = functools.partial(_scaled_sin, scale=2)


def c_du_global_partial_called(x):
    return g_partial(x) + 1


def _store_scale(x, scale):
    global g_flag
    g_flag = scale
    return x + g_flag


g_store_partial = functools.partial(_store_scale, scale=2)


def c_du_global_partial_stores_global(x):
    return g_store_partial(x) * 2, g_flag


c_du_global_partial_stores_global.extra_args = _afresh(g_flag=0)


# -- another module's globals ----------------------------------------------------------------------------------
def c_du_other_module_tensor_rebound(x):
    val = x + _other.g_tensor_export
    _other.g_tensor_export = _other.g_tensor_export + 1
    return val, _other.g_tensor_export


def _reset_other(**names):
    def made():
        for name, value in names.items():
            if value is _ABSENT:
                _other.__dict__.pop(name, None)
            else:
                setattr(_other, name, value() if callable(value) else value)
        return ()
    return made


c_du_other_module_tensor_rebound.extra_args = _reset_other(g_tensor_export=lambda: torch.ones(3))


def c_du_other_module_flag_set_by_its_function(x):
    _other.set_flag_true()
    a = _other.global_flag
    _other.set_flag_false()
    return x + 1, a, _other.global_flag


c_du_other_module_flag_set_by_its_function.extra_args = _reset_other(global_flag=False)


def c_du_other_module_flag_set_true(x):
    _other.set_flag_true()
    return x + 1 if _other.global_flag else x - 1


c_du_other_module_flag_set_true.extra_args = _reset_other(global_flag=False)


def c_du_other_module_deletes_its_global(x):
    _other.delete_value_fn()
    return x + 1, "delete_value" in _other.__dict__


c_du_other_module_deletes_its_global.extra_args = _reset_other(delete_value=True)


def c_du_other_module_deletes_missing_global(x):
    _other.delete_value_fn()
    return x + 1


c_du_other_module_deletes_missing_global.extra_args = _reset_other(delete_value=_ABSENT)


def c_du_other_module_delete_then_store(x):
    _other.delete_then_store_value_fn()
    return x + _other.delete_value


c_du_other_module_delete_then_store.extra_args = _reset_other(delete_value=1)


# -- DELETE_GLOBAL -----------------------------------------------------------------------------------------------
def c_du_delete_global(x):
    global _dg_a
    del _dg_a
    return x + 1, "_dg_a" in globals()


c_du_delete_global.extra_args = _afresh(_dg_a=10)


def c_du_delete_missing_global(x):
    global _dg_a
    y = x * 2
    del _dg_a
    return y + 1


c_du_delete_missing_global.extra_args = _afresh(_dg_a=_ABSENT)


def _delete_dg_a():
    global _dg_a
    del _dg_a


def c_du_delete_missing_global_caught_by_caller(x):
    y = x + 1
    try:
        _delete_dg_a()
    except NameError:
        y = y * 3
    return y


c_du_delete_missing_global_caught_by_caller.extra_args = _afresh(_dg_a=_ABSENT)


def c_du_global_created_then_deleted(x):
    global _dg_a
    _dg_a = 1
    del _dg_a
    return x + 1, "_dg_a" in globals()


c_du_global_created_then_deleted.extra_args = _afresh(_dg_a=_ABSENT)


def c_du_global_created_then_deleted_twice(x):
    global _dg_a
    _dg_a = 1
    del _dg_a
    del _dg_a  # noqa: F821 (the second delete raises NameError: the point)
    return x + 1


c_du_global_created_then_deleted_twice.extra_args = _afresh(_dg_a=_ABSENT)


def c_du_delete_global_twice(x):
    global _dg_a
    del _dg_a
    del _dg_a  # noqa: F821 (the second delete raises NameError: the point)
    return x + 1


c_du_delete_global_twice.extra_args = _afresh(_dg_a=1)


def c_du_delete_global_then_store(x):
    global _dg_a
    del _dg_a
    _dg_a = 7
    names = list(globals())
    return x + _dg_a, names.index("_dg_a") > names.index("_dg_pad")


c_du_delete_global_then_store.extra_args = _afresh(_dg_a=1, _dg_pad=0)


def c_du_delete_tensor_global(x):
    global _dg_a
    y = x + _dg_a
    del _dg_a
    return y, "_dg_a" in globals()


c_du_delete_tensor_global.extra_args = _afresh(_dg_a=lambda: torch.ones(3))


def c_du_delete_global_presence_flip(x):
    global _dg_a
    y = x + 1
    try:
        del _dg_a
    except NameError:
        y = y + 1
    return y


c_du_delete_global_presence_flip.extra_args = _afresh(_dg_a=1)
c_du_delete_global_presence_flip.calls = 2


def c_du_delete_global_absent_caught(x):
    global _dg_a
    y = x + 1
    try:
        del _dg_a
    except NameError as e:
        y = y + len(e.args)
    return y


c_du_delete_global_absent_caught.extra_args = _afresh(_dg_a=_ABSENT)


def c_du_read_missing_global_caught(x):
    y = x.cos()
    try:
        y = y + _dg_never
    except NameError as e:
        return y, str(e)
    return y


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
