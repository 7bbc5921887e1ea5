"""Tensor metadata and Python objects around it, after Paddle's SOT tests (test_18_tensor_method, test_16_paddle_api,
test_dtype, test_26_size, test_numpy, test_side_effects), with torch, for ``capture_count.py --only paddle_sot3``:
sizes, dtypes and devices as Python values, tensor methods returning Python values, objects with slots,
properties and ``__getattr__``, class-level state, setattr/getattr/delattr, match statements, copies.
"""

from __future__ import annotations

import copy

import numpy as np
import torch


# -- sizes, dtypes, devices (test_26_size, test_dtype) ---------------------------------------------------
def c_ps3t_size_arithmetic(x):
    m = x.reshape(1, 3).expand(2, 3)
    s = m.size()
    return (x + s.numel(), s + (4,), s[1:],  # noqa: RUF005 - Size + tuple is the construct
            torch.Size([2, 3]) == s, list(s), s.index(3), s.count(2),
            tuple(reversed(s)), m.new_zeros(s[::-1]).shape)


def c_ps3t_dtype_properties(x):
    d = x.dtype
    return (x + torch.finfo(d).eps, d.is_floating_point, d.itemsize, torch.iinfo(torch.int32).max,
            d.is_complex, d == torch.float32, str(d), x.to(dtype=torch.float64).dtype)


def c_ps3t_device_properties(x):
    dev = x.device
    return (x + (dev.type == "cpu"), str(dev), dev == torch.device("cpu"), dev.index,
            torch.zeros(2, device=dev).device.type)


def c_ps3t_metadata_methods(x):
    m = x.reshape(3, 1)
    return (x * m.dim() + m.numel() + m.element_size(), m.stride(), m.is_contiguous(), m.t().is_contiguous(),
            m.ndimension(), m.nelement(), m.storage_offset(), m.requires_grad, m.is_leaf, m.is_floating_point())


def c_ps3t_split_chunk_unbind_sizes(x):
    m = torch.arange(12.0).reshape(3, 4) + x[0]
    a, b = m.split([1, 2])
    parts = m.chunk(2, dim=1)
    rows = m.unbind(0)
    return a.sum() + b.sum() + len(parts) + len(rows), [p.shape for p in parts], rows[-1]


def c_ps3t_type_conversions(x):
    return x.type(torch.float64), x.type(), x.long().dtype, x.to(torch.int32).float(), x.double().half().dtype


def c_ps3t_tensor_from_shape_values(x):
    m = torch.outer(x, x)
    h, w = m.shape
    t = torch.tensor([h, w])
    return t * 2, torch.full((h, w), float(h)), torch.zeros(m.shape[0] * 2)


def c_ps3t_where_and_clamp_with_python_scalars(x):
    lo, hi = 0.5, 1.5
    return torch.where(x > 1, x, 0.0), x.clamp(min=lo, max=hi), torch.clip(x, lo), x.masked_fill(x < 1, -1)


def c_ps3t_numpy_values_in_arithmetic(x):
    scale = np.float32(2.0)
    shift = np.int64(3)
    arr = np.array([1.0, 2.0, 3.0], dtype=np.float32)
    return x * float(scale) + int(shift), x + torch.from_numpy(arr), arr.shape, arr.dtype.name


# -- objects around tensors (test_side_effects, test_call_object) -----------------------------------------------
class _Slots:
    __slots__ = ("a", "b")

    def __init__(self, a):
        self.a = a


def c_ps3t_slots_object(x):
    s = _Slots(x)
    s.b = x * 2
    has_b = hasattr(s, "b")
    del s.b
    return s.a + 1, has_b, hasattr(s, "b")


class _Temperature:
    def __init__(self):
        self._c = 0.0

    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, value):
        self._c = value

    @celsius.deleter
    def celsius(self):
        self._c = None


def c_ps3t_property_setter_deleter(x):
    t = _Temperature()
    t.celsius = 2.5
    v = t.celsius
    del t.celsius
    return x + v, t._c


class _Fallback:
    def __init__(self, t):
        self.t = t

    def __getattr__(self, name):
        if name.startswith("scaled_"):
            return self.t * int(name[len("scaled_"):])
        raise AttributeError(name)


def c_ps3t_getattr_fallback(x):
    f = _Fallback(x)
    return f.scaled_3 + f.scaled_2, hasattr(f, "missing"), getattr(f, "other", None)


class _Counter:
    instances = 0
    log = []

    def __init__(self):
        type(self).instances += 1
        _Counter.log.append(self.instances)


def c_ps3t_class_level_state(x):
    _Counter.instances, _Counter.log = 0, []  # each run starts from the same class state
    before = _Counter.instances
    _Counter()
    _Counter()
    return x + _Counter.instances - before, list(_Counter.log[-2:])


def c_ps3t_setattr_getattr_delattr_builtins(x):
    class Box:
        pass

    b = Box()
    for i, name in enumerate(("a", "b", "c")):
        setattr(b, name, x + i)
    delattr(b, "b")
    total = getattr(b, "a") + getattr(b, "c")  # noqa: B009 - the builtin is the construct
    return total, sorted(vars(b)), hasattr(b, "b")


def c_ps3t_object_dict_update(x):
    class Config:
        def __init__(self):
            self.lr = 0.1

    cfg = Config()
    cfg.__dict__.update({"momentum": 0.9, "lr": 0.2})
    return x * cfg.lr + cfg.momentum, dict(vars(cfg))


def c_ps3t_type_of_value_rebuilds(x):
    items = [1, 2]
    same = type(items)(reversed(items))
    t = type(x)
    return x + same[0], same, t is torch.Tensor, type((1,))([3]), isinstance(x, (int, torch.Tensor))


def c_ps3t_match_statement(x):
    out = []
    for value in ((1, 2), {"k": 3}, [4, 5, 6], "s", 7.5, None):
        match value:
            case (a, b):
                out.append(a + b)
            case {"k": v}:
                out.append(v)
            case [first, *rest]:
                out.append(first + len(rest))
            case str() as s:
                out.append(len(s))
            case float(f) if f > 7:
                out.append(int(f))
            case _:
                out.append(0)
    return x + sum(out), out


def c_ps3t_match_class_pattern(x):
    class Point:
        __match_args__ = ("px", "py")

        def __init__(self, px, py):
            self.px, self.py = px, py

    match Point(1, 2):
        case Point(0, _):
            r = 0
        case Point(px, py=2):
            r = px + 10
        case _:
            r = -1
    return x + r


def c_ps3t_copy_of_containers_and_objects(x):
    class Holder:
        def __init__(self, items):
            self.items = items

    h = Holder([1, [2, 3]])
    shallow = copy.copy(h)
    deep = copy.deepcopy(h.items)
    shallow.items.append(4)
    deep[1].append(5)
    return x + len(h.items), h.items, deep, copy.copy({"a": [1]})


def c_ps3t_walrus_in_comprehension(x):
    total = 0
    vals = [(total := total + i) for i in range(4)]
    filtered = [y for i in range(6) if (y := i * i) % 2]
    return x + total, vals, filtered


def c_ps3t_dict_sorted_by_value_and_join(x):
    scores = {"b": 2, "a": 3, "c": 1}
    ranked = sorted(scores.items(), key=lambda kv: kv[1], reverse=True)
    text = ",".join(map(str, [k for k, _ in ranked]))
    return x + ranked[0][1], text, dict(zip("xyz", range(3))), max(scores, key=scores.get)


def c_ps3t_star_call_forwarding(x):
    def inner(a, b=2, *rest, c, d=4, **kw):
        return a + b + sum(rest) + c + d + sum(kw.values())

    def outer(*args, **kwargs):
        return inner(*args, **{"c": 1, **kwargs})

    return outer(x, 1, 2, 3, d=5, e=6), outer(x, c=7)


def c_ps3t_generator_to_stack_and_cat(x):
    rows = torch.stack(tuple(x * i for i in range(3)))
    cat = torch.cat([x[i:i + 1] for i in range(x.shape[0])])
    return rows.sum(0) + cat, torch.stack(list(map(torch.neg, [x, x])))


def c_ps3t_generator_send_loop(x):
    def acc():
        total = 0
        while True:
            got = yield total
            if got is None:
                return total
            total += got

    g = acc()
    next(g)
    for v in (1, 2, 3):
        g.send(v)
    try:
        g.send(None)
    except StopIteration as e:
        final = e.value
    return x + final



# -- tensor methods handed around (test_18_tensor_method) -----------------------------------------------------------
def c_ps3t_bound_method_of_argument_tensor(x, func):
    return func(x), func(x * 2)


c_ps3t_bound_method_of_argument_tensor.extra_args = lambda: (torch.ones(3).add,)


def c_ps3t_unbound_methods_and_names(x):
    ops = [torch.Tensor.sin, torch.Tensor.cos, getattr(torch.Tensor, "exp")]  # noqa: B009 - by name is the construct
    out = x
    for op in ops:
        out = op(out)
    by_name = [getattr(x, name)() for name in ("abs", "sqrt", "neg")]
    return out, by_name, torch.Tensor.add(x, 1, alpha=2)


def c_ps3t_method_chain_math(x):
    a, b = x + 1, x + 2
    c = a.add(b)
    d = c.multiply(a)
    e = d.subtract(b)
    f = e.divide(a)
    g = f.pow(2) + f.abs().sqrt()
    h = (g.abs() + 1).log() - (g / g.max()).exp()
    return h.sin() + h.cos()


def c_ps3t_properties_and_grad_fields(x):
    a = x.reshape(3, 1).expand(3, 2).to(torch.float64)
    b = torch.ones(3, 2)
    return (str(a.device), a.dtype, a.type(), torch.is_tensor(a), a.grad is None, a.data.shape,
            a @ b.T.to(a.dtype) + len(a.shape) + b.numel() + a.ndim + a.dim(), a.mT.shape, a.real.dtype)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
