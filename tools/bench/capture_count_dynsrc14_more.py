"""The ``_more`` part of ``capture_count.py --only dynsrc14``: after PyTorch's test/dynamo/test_reconstruct.py
(a function wrapped by ``torch.no_grad()`` in the frame, as a call, a method put back on its object and a nested
decorated function, with a break inside; ``torch.func.functional_call`` with a dict of new tensors and with a
nested module's ``state_dict``), test_python_autograd.py (a pure-Python tape autograd: a global name counter, a
``NamedTuple`` tape of closures, ``reversed`` over it, forward and backward), test_resume.py (a closure whose
cells and free variables live across a break), test_skip_non_tensor.py (a tensor plus a Python int through a list
and a dict, ``torch.compiler.is_compiling()`` read directly, through a user function, a lambda, a generator and a
forward pre-hook with kwargs) and test_nops.py (``nonlocal`` updates in a loop, a generator handed back, an
expression long enough to need ``EXTENDED_ARG`` jumps). Each is written afresh over one tensor.
"""

from __future__ import annotations

import typing

import torch

# ---- test_reconstruct.py: wrapped functions around a break


def _wrapped_body(x):
    x = x + 1
    torch._dynamo.graph_break()
    inside = torch.is_grad_enabled()
    return x + 2, inside


def c_dynsrc14_no_grad_wrapped_call_break(x):
    out, inside = torch.no_grad()(_wrapped_body)(x)
    return out, inside, torch.is_grad_enabled()


class _Holder:
    def __init__(self):
        self.a = 1
        self.b = 2

    def step(self, x):
        x = x + self.a
        torch._dynamo.graph_break()
        return x + self.b, torch.is_grad_enabled()


def c_dynsrc14_no_grad_wrapped_method_break(x):
    obj = _Holder()
    obj.step = torch.no_grad()(obj.step)
    out, inside = obj.step(x)
    return out, inside, torch.is_grad_enabled()


def c_dynsrc14_no_grad_decorated_nested_break(x):
    a, b = 1, 2

    @torch.no_grad()
    def inner(v):
        v = v + a
        torch._dynamo.graph_break()
        return v + b, torch.is_grad_enabled()

    out, inside = inner(x)
    return out, inside, torch.is_grad_enabled()


def c_dynsrc14_no_grad_wrapped_no_break(x):
    def inner(v):
        return v * 2, torch.is_grad_enabled()

    out, inside = torch.no_grad()(inner)(x)
    return out, inside, torch.is_grad_enabled()


_LIN = torch.nn.Linear(3, 3)


def c_dynsrc14_functional_call_new_weights(x):
    weight = torch.eye(3) * 2
    bias = torch.ones(3)
    return torch.func.functional_call(_LIN, {"weight": weight, "bias": bias}, (x.reshape(1, 3),))


class _Deep(torch.nn.Module):
    def __init__(self):
        super().__init__()
        torch.manual_seed(0)
        leaf = torch.nn.Linear(3, 3, bias=False)
        self.a = torch.nn.ModuleDict({"b": torch.nn.ModuleDict({"c": torch.nn.ModuleDict({"e": leaf})})})

    def forward(self, x):
        return self.a.b.c.e(x)


_DEEP = _Deep()
_DEEP_STATE = {k: torch.full_like(v, 0.5) for k, v in _DEEP.state_dict().items()}


def c_dynsrc14_functional_call_nested_state_dict(x):
    return torch.func.functional_call(_DEEP, _DEEP_STATE, x.reshape(1, 3))


# ---- test_python_autograd.py: a pure-Python tape


_tape_names = 0


def _fresh_name():
    global _tape_names
    name = f"v{_tape_names}"
    _tape_names += 1
    return name


class _Var:
    def __init__(self, value, name=None):
        self.value = value
        self.name = name or _fresh_name()

    def __mul__(self, other):
        return _mul(self, other)

    def __add__(self, other):
        return _add(self, other)

    def total(self):
        return _sum(self)


class _Entry(typing.NamedTuple):
    inputs: list
    outputs: list
    propagate: typing.Callable


_TAPE: list = []


def _reset_tape():
    global _tape_names
    _TAPE.clear()
    _tape_names = 0


def _mul(a, b):
    if isinstance(b, float) and b == 1.0:
        return a
    r = _Var(a.value * b.value)

    def propagate(grads):
        (g,) = grads
        return [g * b, g * a]

    _TAPE.append(_Entry([a.name, b.name], [r.name], propagate))
    return r


def _add(a, b):
    r = _Var(a.value + b.value)

    def propagate(grads):
        (g,) = grads
        return [g * 1.0, g * 1.0]

    _TAPE.append(_Entry([a.name, b.name], [r.name], propagate))
    return r


def _sum(a):
    r = _Var(torch.sum(a.value))

    def propagate(grads):
        (g,) = grads
        return [_Var(g.value.expand(a.value.size()))]

    _TAPE.append(_Entry([a.name], [r.name], propagate))
    return r


def _grad(loss, wanted):
    table = {loss.name: _Var(torch.ones(()))}
    for entry in reversed(_TAPE):
        outs = [table.get(name) for name in entry.outputs]
        if all(o is None for o in outs):
            continue
        for name, g in zip(entry.inputs, entry.propagate(outs)):
            if name in table:
                table[name] = _Var(table[name].value + g.value)
            else:
                table[name] = g
    return [table[w.name].value if w.name in table else None for w in wanted]


def c_dynsrc14_python_tape_forward(x):
    _reset_tape()
    a, b = _Var(x, "a"), _Var(x * 2, "b")
    loss = ((a + b) * b).total()
    n = len(_TAPE)
    _reset_tape()
    return loss.value, n


def c_dynsrc14_python_tape_backward(x):
    _reset_tape()
    a, b = _Var(x, "a"), _Var(x + 1, "b")
    loss = ((a + b) * b).total()
    grads = _grad(loss, [a, b])
    _reset_tape()
    return grads


def c_dynsrc14_python_tape_global_counter(x):
    _reset_tape()
    v = _Var(x)
    w = _Var(x)
    out = (v * w).value, v.name, w.name, _tape_names
    _reset_tape()
    return out


# ---- test_resume.py: cells and free variables across a break


def _make_resumed():
    var1 = 1

    def fn(x):
        x = x + 1
        var2 = 3
        torch._dynamo.graph_break()
        x = x + var1

        def inner():
            return var2

        return x + inner()

    return fn


_RESUMED = _make_resumed()


def c_dynsrc14_freevars_cells_across_break(x):
    return _RESUMED(x) * 2


# ---- test_skip_non_tensor.py


def c_dynsrc14_list_tensor_plus_int(x):
    def add(pair):
        return pair[0] + pair[1]

    return add([x, 5])


def c_dynsrc14_dict_tensor_plus_int(x):
    def add(d):
        return d["a"] + d["b"]

    return add({"a": x, "b": 5})


def _compiling():
    return torch.compiler.is_compiling()


def _compiling_gen():
    for _ in range(1):
        yield torch.compiler.is_compiling()


def c_dynsrc14_is_compiling_paths(x):
    hits = 0
    if torch.compiler.is_compiling():
        hits += 1
    if _compiling():
        hits += 1
    if (lambda: torch.compiler.is_compiling())():
        hits += 1
    for flag in _compiling_gen():
        hits += flag
    return x + 1, hits > 0 or hits == 0


class _PreHooked(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.seen = 0
        self.register_forward_pre_hook(self.pre, with_kwargs=True)

    def pre(self, module, args, kwargs):
        if _compiling() or not _compiling():
            self.seen += 1
        return args, kwargs

    def forward(self, x, scale=1.0):
        return x * scale


def c_dynsrc14_pre_hook_with_kwargs(x):
    m = _PreHooked()
    out = m(x, scale=3.0)
    return out, m.seen


# ---- test_nops.py

_C = 10


def c_dynsrc14_nonlocal_loop_modify(x):
    acc = 0
    one = 1

    def modify():
        nonlocal acc
        acc = acc + x + _C

    for _ in range(2):
        modify()
    return acc + one


def _two():
    yield 1
    yield 2


def c_dynsrc14_generator_handed_back(x):
    g = _two()
    first = next(g)
    return x + first, next(g), list(g)


_LONG = "+".join(["a", "b"] * 256)
_EXTENDED = eval(f"lambda a, b, flag: ({_LONG} + a) if flag else ({_LONG} - b)")


def c_dynsrc14_extended_arg_jumps(x):
    return _EXTENDED(x, x + 1, True), _EXTENDED(x, x + 1, False)


def _taped_outside():
    """The forward run eagerly, before the frame: the tape's closures come in from outside."""
    _reset_tape()
    a, b = _Var(torch.arange(3.0), "a"), _Var(torch.full((3,), 2.0), "b")
    loss = ((a + b) * b).total()
    return (loss, [a, b])


def c_dynsrc14_python_tape_grad_of_outside_tape(x, loss, wanted):
    grads = _grad(loss, wanted)
    return [g * x for g in grads]


c_dynsrc14_python_tape_grad_of_outside_tape.extra_args = _taped_outside


def c_dynsrc14_item_sizes_then_view(x):
    t = torch.tensor([2, 3], dtype=torch.int32) + x.sum().int() * 0
    n0, n1 = t[0].item(), t[1].item()
    torch._check_is_size(n0)
    torch._check_is_size(n1)
    a = torch.zeros(n0 * n1)
    return a.view(-1, 3), a.view(n0, n1).shape


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
