"""Nested graph breaks, part two (see ``capture_count_dynamo_tests_nested7``): breaks inside nn.Module methods
called from ``forward``, generators and comprehensions, global and attribute side effects made before a nested
break, and helpers from another module, after PyTorch's test/dynamo/test_nested_graph_breaks.py. Each is
written afresh over one tensor.
"""

from __future__ import annotations

import torch

G_TENSOR = torch.zeros(3)
G_COUNT = [0]
_SINK = []


@torch.compiler.disable
def _brk():
    """A real break: torch.compile and loom both run a disabled function natively (graph_break() loom erases)."""
    _SINK.append(None) if len(_SINK) < 0 else None


@torch.compiler.disable
def _opaque(t):
    return t + 100


# -- nn.Module methods ---------------------------------------------------------------------------------------
class _Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = torch.nn.Linear(3, 3)

    def helper(self, t):
        t = self.lin(t)
        _brk()
        return t.relu()

    def forward(self, t):
        return self.helper(t) + 1


class _Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        self.a = _Block()
        self.b = _Block()
        self.scale = 2.0

    def forward(self, t):
        return self.b(self.a(t) * self.scale)


_NET = _Net()


def c_nest7m_module_method_break(x):
    return _NET(x)


class _Counter(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def bump(self, t):
        self.calls += 1
        _brk()
        return t * self.calls

    def forward(self, t):
        return self.bump(t) + self.bump(t)


def c_nest7m_module_attr_mutated_across(x):
    m = _Counter()
    return m(x), m.calls


class _OpaqueInside(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("buf", torch.ones(3))

    def _side(self, t):
        return _opaque(t) * self.buf

    def forward(self, t):
        return self._side(t.sin()).cos()


_OPQ = _OpaqueInside()


def c_nest7m_module_disabled_helper(x):
    return _OPQ(x)


class _ListNet(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(1)
        self.layers = torch.nn.ModuleList([torch.nn.Linear(3, 3) for _ in range(2)])

    def run(self, layer, t):
        t = layer(t)
        _brk()
        return t.tanh()

    def forward(self, t):
        for layer in self.layers:
            t = self.run(layer, t)
        return t


_LISTNET = _ListNet()


def c_nest7m_modulelist_loop_break(x):
    return _LISTNET(x)


class _Seq(torch.nn.Module):
    def forward(self, t):
        t = t * 2
        _brk()
        return t + 1


_SEQ = torch.nn.Sequential(_Seq(), torch.nn.ReLU(), _Seq())


def c_nest7m_sequential_child_break(x):
    return _SEQ(x - 1)


# -- generators and comprehensions ---------------------------------------------------------------------------
def c_nest7m_break_in_comprehension_callee(x):
    def f1(t, i):
        _brk()
        return t * i

    return torch.stack([f1(x, i) for i in range(3)])


def c_nest7m_break_in_generator_body(x):
    def gen(t):
        for i in range(3):
            _brk()
            yield t + i

    return sum(gen(x))


def c_nest7m_generator_consumed_by_caller(x):
    def gen(t):
        yield t.sin()
        _brk()
        yield t.cos()

    def f1(t):
        return list(gen(t))

    a, b = f1(x)
    return a + b


def c_nest7m_genexpr_with_nested_call(x):
    def f1(t):
        _brk()
        return t.abs()

    return sum(f1(x * i) for i in range(1, 4))


def c_nest7m_dict_comp_nested_break(x):
    def f1(t, k):
        _brk()
        return t + len(k)

    d = {k: f1(x, k) for k in ("a", "bb")}
    return d["a"] * d["bb"]


def c_nest7m_next_on_generator_nested(x):
    def gen(t):
        t = t + 1
        yield t
        yield t * 2

    def f1(g):
        _brk()
        return next(g)

    g = gen(x)
    return f1(g) + f1(g)


# -- side effects before the break ---------------------------------------------------------------------------
def c_nest7m_global_mutated_before_break(x):
    global G_TENSOR
    G_TENSOR = torch.zeros(3)

    def f1():
        global G_TENSOR
        G_TENSOR = G_TENSOR + 1
        _brk()
        return G_TENSOR * 2

    def f2(t):
        return t + f1()

    return f2(x), G_TENSOR


def c_nest7m_list_appended_before_break(x):
    seen = []

    def f1(t):
        seen.append(t.sum())
        _brk()
        seen.append(t.mean())
        return t + 1

    def f2(t):
        return f1(t) * len(seen)

    return f2(x), seen


def c_nest7m_object_attr_before_break(x):
    class Box:
        pass

    box = Box()
    box.v = x

    def f1(b):
        b.v = b.v * 3
        _brk()
        return b.v + 1

    def f2(b):
        return f1(b) - b.v

    return f2(box), box.v


def c_nest7m_global_list_counter(x):
    G_COUNT[0] = 0

    def f1(t):
        G_COUNT[0] += 1
        _brk()
        return t + G_COUNT[0]

    return f1(f1(x)), G_COUNT[0]


def c_nest7m_inplace_before_break(x):
    def f1(t):
        t.mul_(2)
        _brk()
        return t.add_(1)

    y = x.clone()
    return f1(y) + y


# -- other modules and helpers -------------------------------------------------------------------------------
def c_nest7m_stdlib_callback_break(x):
    import functools

    def f1(acc, w):
        _brk()
        return acc + w

    return functools.reduce(f1, [x, x * 2, x * 3])


def c_nest7m_map_callback_break(x):
    def f1(w):
        _brk()
        return x * w

    return torch.stack(list(map(f1, [1.0, 2.0])))


def c_nest7m_sorted_key_break(x):
    def key(t):
        _brk()
        return float(t.sum())

    ts = [x + 2, x - 1, x]
    return torch.stack(sorted(ts, key=key))


def c_nest7m_method_of_plain_object(x):
    class Helper:
        def __init__(self, k):
            self.k = k

        def apply(self, t):
            t = t * self.k
            _brk()
            return t + self.k

    h = Helper(2.0)
    return h.apply(x) + h.apply(x + 1)


def c_nest7m_staticmethod_classmethod(x):
    class H:
        base = 5.0

        @staticmethod
        def s(t):
            _brk()
            return t * 2

        @classmethod
        def c(cls, t):
            _brk()
            return t + cls.base

    return H.s(x) + H.c(x)


def c_nest7m_data_dependent_nested(x):
    def f1(t):
        if t.sum() > 0:
            return t * 2
        return t - 1

    def f2(t):
        return f1(t + 1) + 1

    return f2(x)


def c_nest7m_item_nested(x):
    def f1(t):
        return t.max().item()

    def f2(t):
        return t * f1(t)

    return f2(x) + 1


def c_nest7m_break_then_return_early(x):
    def f1(t, flag):
        _brk()
        if flag:
            return t * 2
        return t * 3

    return f1(x, True) + f1(x, False)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
