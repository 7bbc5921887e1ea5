"""Side-effect programs after Paddle's SOT test_side_effects and test_simulate_initialize for
``capture_count.py --only paddle12``: edits of argument dicts, lists and objects that the caller must see after
the compiled frame returns (each program returns the edited argument so the comparison sees them).
"""

from __future__ import annotations

import torch


class _Obj:
    def __init__(self):
        self.x = 2
        self.y = torch.tensor(1.0)

    def record(self, v):
        self.outputs = []
        self.outputs.append(v)
        return self.outputs


def c_p12s_dict_nested_argument_edits(x, d):
    d[0][0] = x + 42
    d[1][0] = d[0][0] + d[0][1]
    d[2] = {1: 2}
    return d


c_p12s_dict_nested_argument_edits.extra_args = lambda: ({0: {0: 1, 1: 2}, 1: {0: 1, 1: 2}},)


def c_p12s_dict_inner_aliases_after_delete(x, d):
    a, b = d[0], d[1]
    del a[0]
    a[1] = b[0] + x
    a[2] = b[1]
    d[1][0] = 42
    del a[1]
    return a, b, d


c_p12s_dict_inner_aliases_after_delete.extra_args = lambda: ({0: {0: 1, 1: 2}, 1: {0: 1, 1: 2}},)


def c_p12s_dict_item_taken_then_deleted(x, d):
    b = d[0]
    del d[0]
    b[0] = x
    return d, b


c_p12s_dict_item_taken_then_deleted.extra_args = lambda: ({0: {0: 1, 1: 2}, 5: 6},)


def c_p12s_list_argument_pops_and_remove(x, items):
    items.pop(0)
    items.pop()
    items.pop(1)
    items.remove(4)
    return x + items[0], items


c_p12s_list_argument_pops_and_remove.extra_args = lambda: ([1, 2, 3, 4, 5, 6, 7],)


def c_p12s_list_argument_remove_missing_raises(x, items):
    items.append(x.shape[0])
    items.remove(1)  # not there: the ValueError leaves the frame
    return items


c_p12s_list_argument_remove_missing_raises.extra_args = lambda: ([0, 2, 4],)


def c_p12s_list_argument_sort_reverse_clear(x, a, b):
    a.sort()
    b.reverse()
    out = x + a[0] + b[0]
    a.clear()
    return out, a, b


c_p12s_list_argument_sort_reverse_clear.extra_args = lambda: ([2, 1, 7, 3], [-1, 2, -3])


def c_p12s_list_argument_nested_in_new_list(x, items):
    holder = []
    holder.append(items)
    holder[-1].append(x)
    holder[0].insert(0, 12)
    return items


c_p12s_list_argument_nested_in_new_list.extra_args = lambda: ([1, 2, 3],)


def c_p12s_list_slice_after_reverse(x, items):
    items.reverse()
    total = x
    for _, v in zip(range(2), items[2:]):
        total = total + v
    return total, items


c_p12s_list_slice_after_reverse.extra_args = lambda: ([1, 2, 3, 4],)


def c_p12s_object_argument_attribute_set_and_del(x, o):
    t = x + 1
    o.x = t
    del o.y
    return t, o.x, hasattr(o, "y"), vars(o)


c_p12s_object_argument_attribute_set_and_del.extra_args = lambda: (_Obj(),)


def c_p12s_unbound_method_sets_new_attribute(x, o):
    out = _Obj.record(o, x * 2)
    return out, o.outputs is out, sorted(vars(o))


c_p12s_unbound_method_sets_new_attribute.extra_args = lambda: (_Obj(),)


class _Appender:
    def __init__(self, vals):
        vals.append(1)


def c_p12s_constructor_edits_argument_list(x, vals):
    _Appender(vals)
    _Appender(vals)
    return torch.tensor(vals).sum() + x, vals


c_p12s_constructor_edits_argument_list.extra_args = lambda: ([1.0, 2.0, 3.0],)


class _NopModule(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = None


def c_p12s_module_made_with_none_weight(x):
    w = _NopModule().weight
    if w is not None:
        x = x + 1
    sm = torch.nn.Softmax(dim=0)
    return sm(x) + sm(x * 2)


def c_p12s_list_filled_in_range_loop(x):
    a = []
    for _ in range(3):
        a.append(x)
    for i in range(3):
        a[i] = x * i
    return a[2], len(a)


def c_p12s_global_list_appended(x):
    _LOG.clear()
    _LOG.append(len(_LOG))
    _LOG.append(x.shape[0])
    return x + len(_LOG), list(_LOG)


_LOG = []


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
