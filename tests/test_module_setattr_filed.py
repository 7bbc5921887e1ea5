"""``module.name = value`` in the compiled frame is filed where ``nn.Module.__setattr__`` files it (a buffer
reassigned stays a buffer, None over a submodule or a parameter keeps the key with None, a parameter or a
submodule over a buffer's name leaves ``_buffers``), so reading the tables later in the same frame
(``buffers()``, ``named_parameters()``, ``children()``, ``name in m._modules``) needs no graph break; a tensor
over a parameter's or a submodule's name raises TypeError where eager does. What the model cannot tell (a tensor
carrying ``nn.Buffer``'s flag, a registration hook, a name in the instance dict) is replayed through
``Module.__setattr__`` and reading the table it changes breaks, as before. Each decision is guarded: another
instance whose tables differ recompiles."""

import pytest
import torch
from torch import nn

import loom


class _Running(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(3))
        self.register_buffer("steps", torch.zeros(()), persistent=False)
        self.scale = nn.Parameter(torch.ones(3))
        self.act = nn.ReLU()


def _state(m):
    return (list(m._parameters), list(m._buffers), list(m._modules), sorted(m.state_dict()),
            sorted(m._non_persistent_buffers_set), sorted(k for k in vars(m) if not k.startswith("_")))


def _same(a, b):
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and a.shape == b.shape and torch.equal(a, b)
    if isinstance(a, (list, tuple)):
        return type(a) is type(b) and len(a) == len(b) and all(_same(p, q) for p, q in zip(a, b))
    return type(a) is type(b) and a == b


def _compare(fn, calls=2, make=_Running):
    """fn on a fresh module in eager and compiled, ``calls`` times each: results and the modules' state agree."""
    eager_m, loom_m = make(), make()
    expected = [fn(torch.arange(3.0), eager_m) for _ in range(calls)]
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    result = [compiled(torch.arange(3.0), loom_m) for _ in range(calls)]
    assert _same(result, expected), (result, expected)
    assert _state(loom_m) == _state(eager_m)
    return loom.explain(fn)(torch.arange(3.0), make())


def buffer_reassigned(x, m):
    m.running = m.running * 0.5 + x
    m.steps = m.steps + 1
    return [(n, b.clone()) for n, b in m.named_buffers()], len(list(m.parameters()))


def submodule_set_to_none(x, m):
    m.act = None
    y = x + 1 if m.act is None else m.act(x)
    return y, "act" in m._modules, [type(c).__name__ for c in m.children()]


def parameter_set_to_none(x, m):
    m.scale = None
    return x * 2, [n for n, _ in m.named_parameters()], "scale" in m._parameters


def parameter_over_buffer_and_module_over_parameter(x, m):
    m.running = nn.Parameter(torch.full((3,), 2.0))
    m.scale = None
    m.steps2 = x + 1  # a new plain attribute: the instance dict
    return (x * m.running).detach(), [n for n, _ in m.named_parameters()], [n for n, _ in m.named_buffers()]


def module_over_buffer(x, m):
    m.running = nn.Tanh()
    return m.running(x), list(m._buffers), list(m._modules)


@pytest.mark.parametrize("fn", [buffer_reassigned, submodule_set_to_none, parameter_set_to_none,
                                parameter_over_buffer_and_module_over_parameter, module_over_buffer])
def test_tables_read_after_the_assignment_show_it_in_one_graph(fn):
    report = _compare(fn, calls=2 if fn is buffer_reassigned else 1)
    assert (report.graph_count, report.graph_break_count) == (1, 0), report.breaks


def test_a_second_call_on_the_module_reuses_the_entry():
    m = _Running()
    loom.reset()
    compiled = loom.compile(buffer_reassigned, backend="eager")
    for _ in range(3):
        compiled(torch.arange(3.0), m)
    assert loom.stats()["recompiles"] == 0
    torch.testing.assert_close(m.running, torch.arange(3.0) * 1.75)


def tensor_over_parameter(x, m):
    try:
        m.scale = x * 2
    except TypeError:
        return x - 1, [n for n, _ in m.named_parameters()]
    return x + 1, []


def tensor_over_submodule_then_add(x, m):
    m.act = x
    x.add_(1)
    return x


def test_a_tensor_over_a_parameter_or_a_submodule_raises_type_error_there():
    _compare(tensor_over_parameter, calls=1)
    x = torch.zeros(3)
    loom.reset()
    with pytest.raises(TypeError, match="child module 'act'"):
        loom.compile(tensor_over_submodule_then_add, backend="eager")(x, _Running())
    assert x.tolist() == [0.0, 0.0, 0.0]  # raised before the in-place add, as in eager


def test_another_instance_whose_tables_differ_recompiles():
    def fn(x, m):
        m.running = x + 1
        return [n for n, _ in m.named_buffers()], sorted(vars(m).keys() & {"running"})

    plain = _Running()
    del plain._buffers["running"]  # `running` is a plain attribute of this one
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    assert compiled(torch.arange(3.0), _Running()) == fn(torch.arange(3.0), _Running())
    other = _Running()
    del other._buffers["running"]
    assert compiled(torch.arange(3.0), plain) == fn(torch.arange(3.0), other)
    assert "running" not in plain._buffers and isinstance(plain.__dict__["running"], torch.Tensor)


def test_a_tensor_flagged_as_buffer_is_replayed_and_the_listing_breaks():
    def fn(x, m, t):
        m.running = t
        return [n for n, _ in m.named_buffers()]

    eager_m, loom_m = _Running(), _Running()
    expected = fn(torch.zeros(3), eager_m, nn.Buffer(torch.ones(3), persistent=False))
    loom.reset()
    result = loom.compile(fn, backend="eager")(torch.zeros(3), loom_m, nn.Buffer(torch.ones(3), persistent=False))
    assert result == expected
    assert _state(loom_m) == _state(eager_m)  # `running` became non-persistent in both
    report = loom.explain(fn)(torch.zeros(3), _Running(), nn.Buffer(torch.ones(3), persistent=False))
    assert report.graph_break_count == 1


def test_a_registration_hook_keeps_the_replay():
    def fn(x, m):
        m.running = x + 1
        return [b.clone() for b in m.buffers()]

    handle = torch.nn.modules.module.register_module_buffer_registration_hook(lambda mod, name, t: t * 10)
    try:
        eager = fn(torch.zeros(3), _Running())
        loom.reset()
        compiled = loom.compile(fn, backend="eager")
        torch.testing.assert_close(compiled(torch.zeros(3), _Running()), eager)
    finally:
        handle.remove()
    torch.testing.assert_close(compiled(torch.zeros(3), _Running()), fn(torch.zeros(3), _Running()))
    handle = torch.nn.modules.module.register_module_buffer_registration_hook(lambda mod, name, t: t * 10)
    try:  # installed after the entry filed the buffer itself: its guard fails, and the hook runs
        torch.testing.assert_close(compiled(torch.zeros(3), _Running()), eager)
    finally:
        handle.remove()


class _NoneInDict(nn.Module):
    def __init__(self):
        super().__init__()
        self.w = None  # the instance dict: Module.__setattr__ deletes it there when a parameter comes


def test_a_parameter_over_an_instance_dict_name_is_replayed():
    def fn(x, m):
        m.w = nn.Parameter(torch.ones(3))
        return (x * m.w).detach(), list(m._parameters)

    report = _compare(fn, calls=1, make=_NoneInDict)
    assert report.graph_break_count == 1


def test_a_flagged_tensor_under_a_new_name_is_a_buffer_when_listed():
    def fn(x, m, t):
        m.fresh = t
        return [n for n, _ in m.named_buffers()], x + 1

    expected = fn(torch.zeros(3), _Running(), nn.Buffer(torch.ones(3)))
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    assert _same(compiled(torch.zeros(3), _Running(), nn.Buffer(torch.ones(3))), expected)
    plain = compiled(torch.zeros(3), _Running(), torch.ones(3))  # not flagged: an attribute, not listed
    assert _same(plain, fn(torch.zeros(3), _Running(), torch.ones(3)))


def test_a_number_over_a_buffer_raises_type_error_there():
    def fn(x, m):
        m.running = 5
        x.add_(1)
        return x

    x = torch.zeros(3)
    loom.reset()
    with pytest.raises(TypeError, match="buffer 'running'"):
        loom.compile(fn, backend="eager")(x, _Running())
    assert x.tolist() == [0.0, 0.0, 0.0]


class _Accumulating(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("running", torch.zeros(3))

    def forward(self, x):
        self.running = self.running + x
        return x + self.running


def test_a_swapped_buffer_assigned_inside_functional_call_breaks():
    def fn(x, m, tensors):
        out = torch.func.functional_call(m, tensors, (x,))
        return out, m.running.clone()

    expected_tensors = {"running": torch.full((3,), 7.0)}
    expected = fn(torch.arange(3.0), _Accumulating(), expected_tensors)
    tensors = {"running": torch.full((3,), 7.0)}
    loom.reset()
    assert _same(loom.compile(fn, backend="eager")(torch.arange(3.0), _Accumulating(), tensors), expected)
    assert _same(tensors["running"], expected_tensors["running"])  # eager writes the new buffer back there
    report = loom.explain(fn)(torch.arange(3.0), _Accumulating(), {"running": torch.full((3,), 7.0)})
    assert report.graph_break_count == 1
