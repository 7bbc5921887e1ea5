"""User objects in the roles Paddle's SOT tests give them (test_call_object, test_pure_class, test_23_super,
test_guard_user_defined_fn, test_dataclass), with torch, for ``capture_count.py --only paddle_sot3``: objects
with ``__hash__``/``__eq__`` as dict keys and set members, functions and bound methods as keys, user containers
with ``__getitem__``/``__setitem__``/``__contains__``, ``__set_name__`` descriptors, class introspection, several
managers in one ``with``, generator context managers that catch, dataclass reprs, callables kept in lists.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect

import torch


class _Key:
    def __init__(self, name):
        self.name = name

    def __hash__(self):
        return hash(self.name)

    def __eq__(self, other):
        return isinstance(other, _Key) and other.name == self.name


def c_ps3o_user_hash_eq_keys(x):
    table = {_Key("a"): 1, _Key("b"): 2}
    table[_Key("a")] = 10
    members = {_Key("a"), _Key("a"), _Key("c")}
    return x + table[_Key("a")] + len(table), len(members), _Key("c") in members


def _relu(t):
    return t.clamp(min=0)


def c_ps3o_functions_and_methods_as_keys(x):
    class Scaler:
        def scale(self, t):
            return t * 2

    s = Scaler()
    table = {_relu: "relu", torch.neg: "neg", len: "len"}
    by_method = {s.scale: 1}
    return _relu(x - 1) + len(table[_relu]), table[torch.neg], by_method[s.scale], s.scale in by_method


def c_ps3o_tuple_keys_with_objects(x):
    key = (int, "a", 1)
    table = {key: x, (str, "b", 2): x * 2}
    return table[(int, "a", 1)] + table[(str, "b", 2)], next(iter(table))[0] is int


class _Bag:
    def __init__(self):
        self._items = {}

    def __setitem__(self, key, value):
        self._items[key] = value

    def __getitem__(self, key):
        return self._items[key]

    def __contains__(self, key):
        return key in self._items

    def __len__(self):
        return len(self._items)

    def __iter__(self):
        yield from sorted(self._items)


def c_ps3o_user_container_protocols(x):
    bag = _Bag()
    bag["w"] = x
    bag["b"] = 1
    return bag["w"] * 2 + bag["b"], "w" in bag, "z" in bag, len(bag), list(bag), [k for k in bag]


class _Field:
    def __set_name__(self, owner, name):
        self.private = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.private, 0)

    def __set__(self, obj, value):
        setattr(obj, self.private, value * 2)


class _Model:
    weight = _Field()


def c_ps3o_set_name_descriptor(x):
    m = _Model()
    before = m.weight
    m.weight = 3
    return x + m.weight + before, m._weight, type(_Model.__dict__["weight"]).__name__


class _Animal:
    kind = "animal"

    @classmethod
    def create(cls):
        return cls()

    @staticmethod
    def sound():
        return "..."

    @property
    def label(self):
        return type(self).__name__.lower()


class _Dog(_Animal):
    kind = "dog"


def c_ps3o_class_introspection(x):
    d = _Dog.create()
    return (x + len(d.label), d.sound(), _Dog.__bases__[0] is _Animal, [c.__name__ for c in _Dog.__mro__],
            d.__class__.__qualname__, inspect.isclass(_Dog), inspect.isfunction(_relu), _relu.__name__,
            "kind" in vars(_Dog), super(_Dog, d).kind, type(d).kind)


def c_ps3o_several_managers_in_one_with(x):
    log = []

    @contextlib.contextmanager
    def tag(name):
        log.append("in " + name)
        try:
            yield name
        finally:
            log.append("out " + name)

    with tag("a") as a, tag("b") as b, torch.no_grad():
        y = x * 2
    return y, a + b, log, y.requires_grad


def c_ps3o_generator_manager_catches(x):
    @contextlib.contextmanager
    def swallow(kind):
        try:
            yield
        except kind as e:
            caught.append(str(e))

    caught = []
    with swallow(KeyError):
        x = x + 1
        raise KeyError("k")
    with swallow(ValueError):
        x = x * 2
    return x, caught


@dataclasses.dataclass
class _Config:
    lr: float = 0.1
    layers: list = dataclasses.field(default_factory=lambda: [1, 2])


def c_ps3o_dataclass_repr_and_order(x):
    c = _Config()
    return x * c.lr, repr(c), str(_Config(0.5, [])), c == _Config()


def c_ps3o_callables_in_lists(x):
    class Affine:
        def __init__(self, a, b):
            self.a, self.b = a, b

        def __call__(self, t):
            return t * self.a + self.b

    steps = [Affine(2, 1), torch.relu, lambda t: t - 1, Affine(1, 0).__call__]
    for step in steps:
        x = step(x)
    return x, callable(steps[0]), [callable(s) for s in steps]


def c_ps3o_object_attribute_on_argument_class(x, obj):
    type(obj).counter = getattr(type(obj), "counter", 0)  # a class attribute written through type()
    return x + obj.scale, type(obj).__name__


class _WithScale:
    scale = 3


c_ps3o_object_attribute_on_argument_class.extra_args = lambda: (_WithScale(),)



class _Rows:
    def __init__(self, t):
        self.t = t

    def __getitem__(self, i):
        return self.t[i]


def c_ps3o_sequence_protocol_over_tensor(x):
    y = x + 1
    return list(iter(_Rows(y))), [v * 2 for v in _Rows(y.reshape(3, 1))], y * 2


def c_ps3o_tensor_index_error_caught(x):
    y = x + 1
    try:
        y[5]
    except IndexError as e:
        return y * 2, str(e)


class _Count(int):
    def double(self):
        return _Count(self * 2)


def c_ps3o_int_subclass_values(x):
    y = x + 1
    i = _Count(3)
    return y + i.double() + (i + 1), type(i.double()).__name__, y * 2


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
