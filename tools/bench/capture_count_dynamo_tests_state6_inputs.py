"""Side effects on inputs and objects reconstructed after the graph, the ``_inputs`` part of ``capture_count.py
--only dynamo_tests_state6``: dicts passed in and changed (test_reconstruct.py's ``test_ConstDict_*``: a key
stored, ``pop``, ``popitem``, ``del``, ``get``, ``clear``, a dict made and returned), lists and nested containers
changed in place, attributes set, deleted and read with defaults on objects passed in (through the class's own
``__setattr__``/``__delattr__`` and a property's setter and deleter too), attributes on tensors
(test_input_attr_tracking.py: ``x.y`` read, assigned, set in a loop over a list of tensors, around a break,
``.data`` of a tensor made in the frame), closures changed by ``nonlocal``, objects made in the frame and handed
back (user classes, partials, bound methods, generators, a dict that aliases an input) and the order of the
mutations against the graph's ops. Each is written afresh over one tensor.
"""

from __future__ import annotations

import dataclasses
import functools

import torch


@torch._dynamo.disable
def _brk():
    """A break for loom and torch.compile alike (both run a disabled function natively, as one call)."""


def _dict_in():
    return ({1: torch.ones(3), 2: torch.full((3,), 2.0)},)


def _list_in():
    return ([1, 2, 3],)


# -- dicts passed in (test_ConstDict_*_reconstruct) ----------------------------------------------------------
def c_st6_input_dict_key_stored(x, d):
    d[40] = x + 1
    return d


c_st6_input_dict_key_stored.extra_args = _dict_in


def c_st6_input_dict_pop_then_store(x, d):
    d.pop(2)
    d[40] = x + 1
    return d, list(d)


c_st6_input_dict_pop_then_store.extra_args = _dict_in


def c_st6_input_dict_popitem(x, d):
    k, v = d.popitem()
    return x + v, k, d


c_st6_input_dict_popitem.extra_args = _dict_in


def c_st6_input_dict_del_then_store(x, d):
    del d[1]
    d[1] = x * 3
    return list(d), d[1]


c_st6_input_dict_del_then_store.extra_args = _dict_in


def c_st6_input_dict_get_missing_default(x, d):
    d[2] = d.get(2) + x
    d[3] = d.get(3, x) * 2
    return d


c_st6_input_dict_get_missing_default.extra_args = _dict_in


def c_st6_input_dict_clear_then_store(x, d):
    d.clear()
    d["only"] = x + 3
    return d, len(d)


c_st6_input_dict_clear_then_store.extra_args = _dict_in


def c_st6_made_dict_returned(x):
    return {1: x, 2: x + 1, "n": 2}


def c_st6_made_dict_aliases_input_values(x, d):
    view = {"first": d[1], "all": d}
    view["all"][3] = x
    d[1].add_(x)
    return view["first"], d[3] is x, len(d)


c_st6_made_dict_aliases_input_values.extra_args = _dict_in


# -- lists and nested containers passed in ------------------------------------------------------------------
def c_st6_input_list_mutated_every_way(x, items):
    items.append(4)
    items.insert(0, 0)
    items[1:3] = [10, 20, 30]
    del items[-1]
    items.reverse()
    items.sort()
    return x + len(items), items


c_st6_input_list_mutated_every_way.extra_args = _list_in


def c_st6_input_list_extended_with_tensors(x, items):
    items += [x, x * 2]
    items.remove(2)
    return items, items.pop(0)


c_st6_input_list_extended_with_tensors.extra_args = _list_in


def c_st6_nested_input_container_changed(x, box):
    box["rows"][0].append(x.sum())
    box["rows"].append([])
    box["meta"]["seen"] = box["meta"].get("seen", 0) + 1
    return x + len(box["rows"]), box


c_st6_nested_input_container_changed.extra_args = lambda: ({"rows": [[1]], "meta": {}},)


# -- attributes of objects passed in: setattr, delattr, getattr with defaults -----------------------------------
class _Holder:
    def __init__(self):
        self.a = 1
        self.keep = "k"

    def state(self):
        return sorted(vars(self).items(), key=lambda kv: kv[0])


def _holder():
    return (_Holder(),)


def c_st6_input_object_attributes_set_and_deleted(x, h):
    h.a += 1
    h.b = x * 2
    del h.keep
    return x + h.a, hasattr(h, "keep"), sorted(vars(h))


c_st6_input_object_attributes_set_and_deleted.extra_args = _holder


def c_st6_setattr_getattr_delattr_by_name(x, h):
    for name in ("p", "q"):
        setattr(h, name, getattr(h, name, 0) + 1)
    delattr(h, "a")
    missing = getattr(h, "a", None)
    return x + h.p + h.q, missing, sorted(vars(h))


c_st6_setattr_getattr_delattr_by_name.extra_args = _holder


def c_st6_delattr_then_hasattr_branch(x, h):
    delattr(h, "a")
    if hasattr(h, "a"):
        return x
    h.a = 5
    return x * h.a, list(vars(h))


c_st6_delattr_then_hasattr_branch.extra_args = _holder


def c_st6_delattr_missing_raises_caught(x, h):
    try:
        del h.nothing
    except AttributeError:
        return x + 1, h.a
    return x, 0


c_st6_delattr_missing_raises_caught.extra_args = _holder


def c_st6_input_object_tensor_attribute_in_place(x, h):
    h.t = x.clone()
    h.t.mul_(3)
    h.t = h.t + 1
    return h.t, h.a


c_st6_input_object_tensor_attribute_in_place.extra_args = _holder


def c_st6_mutation_order_against_ops(x, h):
    log = []
    h.a = x.sum()
    log.append(h.a)
    y = x * h.a
    h.a = y.sum()
    log.append(h.a)
    return y, log, h.a


c_st6_mutation_order_against_ops.extra_args = _holder


class _Logged:
    def __init__(self):
        object.__setattr__(self, "log", [])
        self.a = 1

    def __setattr__(self, name, value):
        self.log.append(name)
        super().__setattr__(name, value)

    def __delattr__(self, name):
        self.log.append("-" + name)
        object.__delattr__(self, name)


class _WithDeleter:
    def __init__(self):
        self._v = 1

    @property
    def v(self):
        return self._v

    @v.setter
    def v(self, value):
        self._v = value * 2

    @v.deleter
    def v(self):
        self._v = None


def c_st6_input_object_own_setattr_and_delattr(x, o):
    o.b = x + 1
    o.a += 1
    del o.a
    return o.b, list(o.log), sorted(vars(o))


c_st6_input_object_own_setattr_and_delattr.extra_args = lambda: (_Logged(),)


def c_st6_input_object_property_setter_and_deleter(x, p):
    p.v = 3
    a = p.v
    del p.v
    return x + a, p._v


c_st6_input_object_property_setter_and_deleter.extra_args = lambda: (_WithDeleter(),)


def c_st6_del_class_attribute_through_instance_raises(x, h):
    try:
        del h.state
    except AttributeError as e:
        return x + h.a, str(e)
    return x, ""


c_st6_del_class_attribute_through_instance_raises.extra_args = _holder


# -- attributes on tensors (test_input_attr_tracking.py) ---------------------------------------------------
def _tagged_tensor():
    t = torch.full((3,), 2.0)
    t.y = torch.full((3,), 5.0)
    t.scale = 4
    return (t,)


def c_st6_tensor_attribute_read_from_input(x, t):
    return x * t.y + t.scale


c_st6_tensor_attribute_read_from_input.extra_args = _tagged_tensor


def c_st6_tensor_attribute_assigned_then_read(x, y):
    x.y = y
    return x * x.y, x.y is y


c_st6_tensor_attribute_assigned_then_read.extra_args = lambda: (torch.full((3,), 3.0),)


def c_st6_tensor_attribute_const_then_tensor(x):
    x.tag = 4
    a = x * x.tag
    x.tag = x + 1
    return a + x.tag, x.tag


def c_st6_tensor_attributes_in_loop_over_list(x):
    ts = [x + 1, x + 2, x + 3]
    for t in ts:
        t.y = x
        t.z = x * 5
    new_y, new_z = 1, 1
    for t in ts:
        new_y = t.y * new_y
        new_z = t.z * new_z
    return new_y, new_z


def c_st6_tensor_attributes_across_break(x, t):
    t.y = x
    t.z = x * 5
    _brk()
    return t.y * t.z, t.z


c_st6_tensor_attributes_across_break.extra_args = lambda: (torch.ones(3),)


def _summed_tags(a, b, c):
    _brk()
    return a.tag + b.tag + c.tag


def c_st6_tensor_attributes_read_by_breaking_callee(x, y):
    x.tag = 1
    y.tag = 2
    z = torch.zeros(3)
    z.tag = 3
    mult = _summed_tags(x, y, z)
    return x * mult, y * mult


c_st6_tensor_attributes_read_by_breaking_callee.extra_args = lambda: (torch.full((3,), 2.0),)


def c_st6_tensor_attribute_deleted(x):
    x.tag = 2
    out = x * x.tag
    del x.tag
    return out, hasattr(x, "tag")


def c_st6_scoped_tensor_data_set(x):
    z = torch.zeros([4, 4])
    z.data = x.data
    if x.size() == z.size():
        return z * x
    return x + 1


def c_st6_user_method_sets_attributes(x):
    class Holder:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def work(self):
            self.z = self.a * self.b
            self.w = self.a + self.a
            return self.z * self.w

    h = Holder(x, x + 1)
    return h.work(), h.z, h.w


# -- closures changed by nonlocal -------------------------------------------------------------------------------
def c_st6_nonlocal_counter_bumped(x):
    count = 0

    def bump(by):
        nonlocal count
        count += by
        return count

    bump(2)
    bump(3)
    return x * count, count


def c_st6_closure_returned_after_nonlocal(x):
    state = 1

    def step():
        nonlocal state
        state = state * 2
        return state

    step()
    _brk()
    return x + step(), step.__closure__[0].cell_contents


def c_st6_two_closures_share_a_cell(x):
    n = 0

    def inc():
        nonlocal n
        n += 1

    def get():
        return n

    inc()
    inc()
    return x + get(), get()


def c_st6_nonlocal_list_rebound_and_appended(x):
    seen = []

    def note(v):
        nonlocal seen
        seen = [*seen, v]
        seen.append(-v)

    note(1)
    note(2)
    return x + len(seen), seen


def c_st6_nonlocal_changed_after_break(x):
    total = 1

    def grow():
        nonlocal total
        total += 1

    grow()
    _brk()
    grow()
    return x * total, total


# -- objects made in the frame and handed back ----------------------------------------------------------------
@dataclasses.dataclass
class _Point:
    x: torch.Tensor
    n: int = 0

    def __eq__(self, other):
        return type(other) is _Point and torch.equal(self.x, other.x) and self.n == other.n

    def scaled(self, k):
        return self.x * k + self.n


def c_st6_made_object_returned_with_attributes(x):
    p = _Point(x + 1)
    p.n = 3
    p.extra = "late"
    return p, vars(p)["extra"]


def c_st6_partial_reconstructed_at_break(x):
    fn = functools.partial(torch.add, alpha=2)
    _brk()
    return fn(x, x), fn.keywords


def c_st6_bound_method_reconstructed_at_break(x):
    p = _Point(x, 2)
    get = p.scaled
    _brk()
    p.n = 5
    return get(3), get.__self__ is p


def c_st6_partial_returned_then_called(x):
    fn = functools.partial(torch.mul, x)
    return fn(2), fn.args[0] is x, fn.func is torch.mul


def c_st6_generator_made_then_resumed_after_break(x):
    def gen():
        yield x + 1
        yield x + 2

    g = gen()
    first = next(g)
    _brk()
    return first, next(g)


def c_st6_made_list_aliases_input_then_mutated(x, items):
    alias = items
    copy = list(items)
    alias.append(x.sum())
    copy.append(0)
    return len(items), len(copy), alias is items


c_st6_made_list_aliases_input_then_mutated.extra_args = _list_in


def c_st6_made_object_holding_input_list(x, items):
    class Box:
        pass

    b = Box()
    b.items = items
    b.items.append(7)
    b.items = b.items[1:]
    return x + len(items), b.items, len(items)


c_st6_made_object_holding_input_list.extra_args = _list_in


def c_st6_object_attribute_set_then_break_then_read(x):
    p = _Point(x)
    p.n = 4
    _brk()
    p.n += 1
    return p


def c_st6_input_mutated_before_and_after_break(x, h):
    h.a = 10
    y = x + h.a
    _brk()
    h.a = 20
    h.after = True
    return y + h.a, h.state()


c_st6_input_mutated_before_and_after_break.extra_args = _holder


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
