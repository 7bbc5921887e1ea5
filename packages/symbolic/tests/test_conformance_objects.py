"""Conformance: objects — nn.Modules (forward inlined, containers, parameters, buffers, train/eval),
user objects, dataclasses, namedtuples, generators, and side effects on inputs and globals."""

import collections
import dataclasses

import pytest
import torch
from harness import CaseRegistry, check
from torch import nn

CASES = CaseRegistry(default_graphs=1)
case = CASES


X = torch.randn(2, 8)


class Residual(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = nn.Linear(8, 8)
        self.register_buffer("offset", torch.ones(8))
        self.scale = 0.5

    def forward(self, x):
        return x + self.fc(x) * self.scale + self.offset


class Stack(nn.Module):
    def __init__(self):
        super().__init__()
        self.blocks = nn.ModuleList([Residual() for _ in range(3)])
        self.head = nn.Sequential(nn.Linear(8, 4), nn.ReLU(), nn.Linear(4, 2))
        self.table = nn.ModuleDict({"a": nn.Linear(8, 8), "b": nn.Identity()})
        self.drop = nn.Dropout(0.3)

    def forward(self, x):
        for block in self.blocks:
            x = block(x)
        x = self.table["a"](x) + self.table["b"](x)
        x = self.drop(x)
        return self.head(x)


RES = Residual()
STACK = Stack().eval()


@case(RES, X)
def module_forward_inlined(m, x):
    return m(x)


@case(STACK, X)
def module_containers(m, x):
    return m(x)


@case(STACK, X)
def module_indexing(m, x):
    return m.blocks[0](x) + m.blocks[-1](x), m.head[0](x), len(m.blocks), m.head[1:][0](m.head[0](x)) if False else 0


@case(STACK, X)
def module_parameters_iteration(m, x):
    total = 0
    for p in m.parameters():
        total = total + p.sum()
    names = [n for n, _ in m.named_parameters()]
    return total, names, len(list(m.children())), [n for n, _ in m.named_modules()][:4]


@case(RES, X)
def module_attributes(m, x):
    return x * m.scale, m.fc.weight.shape, m.fc.in_features, m.training, m.offset + 1


@case(RES, X)
def module_attribute_store(m, x):
    m.scale = 2.0
    m.calls = 1
    return m(x), m.scale


@case(Stack().train(), X)
def module_train_mode_dropout_is_refused_or_matches(m, x):
    return m.blocks[0](x)


@case(nn.BatchNorm1d(8).eval(), X)
def batchnorm_eval(m, x):
    return m(x)


@case(nn.LayerNorm(8), X)
def layernorm_module(m, x):
    return m(x)


@case(nn.Embedding(10, 8), torch.tensor([[1, 2], [3, 4]]))
def embedding_module(m, idx):
    return m(idx)


@case(nn.Conv2d(3, 4, 3, padding=1), torch.randn(1, 3, 6, 6))
def conv_module(m, x):
    return m(x)


@case(nn.MultiheadAttention(8, 2, batch_first=True), torch.randn(2, 5, 8))
def multihead_attention_module(m, x):
    out, weights = m(x, x, x, need_weights=True)
    return out, weights


@case(nn.GELU(), nn.SiLU(), X)
def activation_modules(a, b, x):
    return a(x) + b(x)


Point = collections.namedtuple("Point", ["x", "y"])


@dataclasses.dataclass
class Config:
    hidden: int = 8
    scale: float = 2.0
    name: str = "cfg"


@case(X, Point(2, 3))
def namedtuple_arg(x, p):
    return x * p.x + p.y, p[0], p._fields


@case(X, Point(2, 3))
def namedtuple_methods(x, p):
    made = Point(1, 4)
    return x * p.x, p._asdict(), made._asdict(), p.count(3), made.index(4)


class Span(collections.namedtuple("SpanBase", ["start", "stop"])):
    @property
    def length(self):
        return self.stop - self.start


@case(X, Span(2, 5))
def namedtuple_subclass_property(x, span):
    return x * span.length, span.length


@case(X)
def namedtuple_create(x):
    p = Point(x, 2)
    q = Point(y=1, x=x * 2)
    return p, q.x * q.y, p._replace if False else 0


@case(X, Config())
def dataclass_arg(x, cfg):
    return x * cfg.scale + cfg.hidden, cfg.name


@case(X, Config())
def dataclass_mutation(x, cfg):
    cfg.scale = cfg.scale * 3
    return x * cfg.scale


class Holder:
    def __init__(self):
        self.items = [1, 2]
        self.value = torch.ones(8)

    def add(self, v):
        self.items.append(v)
        return len(self.items)


HOLDER = Holder()


@case(X)
def global_object_method_mutation(x):
    n = HOLDER.add(5)
    return x * n + HOLDER.value


@case(X, Holder())
def object_tensor_attribute_store(x, h):
    h.value = x * 2
    return h.value + 1


class Level:
    """A property with a setter, shared by a plain object and a module below."""

    @property
    def level(self):
        return self._raw * 10

    @level.setter
    def level(self, value):
        self._raw = value


class Gauge(Level):
    def __init__(self):
        self._raw = 1

    @property
    def fixed(self):
        return 1


@case(X, Gauge())
def property_setter_on_argument(x, g):
    g.level = g.level + 1  # the setter runs: g.level is now 110
    try:
        g.fixed = 5
    except AttributeError:
        x = x * 2
    return x + g.level


class GaugeModule(Level, nn.Module):
    def __init__(self):
        super().__init__()
        self._raw = 1

    def forward(self, x):
        self.level = self.level + 1
        return x + self.level


@case(GaugeModule(), X)
def property_setter_on_module(m, x):
    return m(x)


class NotForHashing:
    def __init__(self):
        self.v = 2

    def __hash__(self):
        raise RuntimeError("only the program may hash this object")


@case(X, NotForHashing())
def object_whose_hash_must_not_run(x, obj):
    return x * obj.v


@case(X)
def generator_function(x):
    def gen(n):
        for i in range(n):
            yield x * i

    return list(gen(3))


@case(X)
def generator_lazy_side_effects(x):
    log = []

    def gen():
        for i in range(3):
            log.append(i)
            yield i

    g = gen()
    first = next(g)
    return x * first, log


@case(X, graphs=0)
def yield_from_returns_value(x):
    def inner():
        yield 1
        yield 2
        return 10

    def outer():
        result = yield from inner()
        yield result

    return list(outer()), x


@case(X)
def generator_expression_consumers(x):
    parts = [x, x * 2, x * 3]
    return sum(p.sum() for p in parts), tuple(p * 2 for p in parts), max(i * 2 for i in range(4)), all(i < 5 for i in range(3))


@case(X, [1, 2, 3], graphs=0)
def list_side_effect_order(x, lst):
    lst.append(len(lst))
    lst.pop(0)
    lst.insert(0, 99)
    return x


@case(X, {"count": 0})
def dict_side_effect_counter(x, state):
    state["count"] += 1
    state["last"] = "x"
    return x * state["count"]


SHARED = {"calls": 0}


@case(X)
def global_dict_side_effect(x):
    SHARED["calls"] = SHARED["calls"] + 1
    return x + SHARED["calls"]


@case(X)
def global_reassign_then_read(x):
    global GLOBAL_MODE
    GLOBAL_MODE = "b"
    if GLOBAL_MODE == "b":
        return x * 2
    return x


GLOBAL_MODE = "a"


class Output(collections.OrderedDict):
    """Hugging Face's ModelOutput pattern: items are attributes too; an int indexes the values."""

    def __getitem__(self, key):
        if isinstance(key, str):
            return dict(self.items())[key]
        return tuple(self[k] for k in self.keys())[key]

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)


@case(torch.randn(3))
def dict_subclass_item_access_runs_its_own_methods(x):
    out = Output()
    out["hidden"] = x + 1
    out["logits"] = x * 2
    out["logits"] = out["logits"] + 1  # its __setitem__ keeps the attribute in step
    return out[0], out[1], out["hidden"], out.logits, out[-1]


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_object_semantics_match_eager(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def test_class_reached_through_type_of_a_new_object_is_guarded_and_mutated():
    import types

    from harness import run_rewritten

    import loom_guards
    from loom_symbolic import translate_function

    class Registry:
        names = []
        scale = 2

        def __init__(self):
            type(self).names.append(type(self).scale)  # type(self): a class with no source of its own

    def make(x):
        Registry()
        return x * 2

    translation = translate_function(make, X)
    guard = loom_guards.compile(translation.guards)
    frame = types.SimpleNamespace(f_locals={"x": X}, f_globals=make.__globals__, closure=make)
    assert guard.why_failed(frame) is None
    Registry.scale = 3
    assert "scale" in str(guard.why_failed(frame))  # the trace read scale: changing it must recompile
    Registry.scale = 2
    run_rewritten(make, translation, (X,), {})
    assert Registry.names == [2]  # the append reached the real list


def test_attributes_missing_from_a_module_or_a_namespace_are_guarded_absent():
    import types

    import loom_guards
    from loom_symbolic import translate_function

    settings = types.ModuleType("scratch_settings")
    options = types.SimpleNamespace()

    def f(x, settings, options):
        return x + getattr(settings, "scale", 1) + getattr(options, "shift", 0)

    guard = loom_guards.compile(translate_function(f, X, settings, options).guards)
    frame = types.SimpleNamespace(f_locals={"x": X, "settings": settings, "options": options},
                                  f_globals=f.__globals__, closure=f)
    assert guard.why_failed(frame) is None
    settings.scale = 5  # the trace took the default: setting it must recompile
    assert guard.why_failed(frame) is not None
    del settings.scale
    options.shift = 2
    assert guard.why_failed(frame) is not None


def test_attributes_missing_from_a_class_are_guarded_absent():
    import types

    import loom_guards
    from loom_symbolic import translate_function

    class Meta(type):
        pass

    class Options(metaclass=Meta):
        pass

    def f(x, options):
        return x + getattr(options, "scale", 1)

    guard = loom_guards.compile(translate_function(f, X, Options).guards)
    frame = types.SimpleNamespace(f_locals={"x": X, "options": Options}, f_globals=f.__globals__, closure=f)
    assert guard.why_failed(frame) is None
    Options.scale = 5  # the trace took the default: setting it on the class must recompile
    assert guard.why_failed(frame) is not None
    del Options.scale
    Meta.scale = 3  # found through the metaclass too
    assert guard.why_failed(frame) is not None
