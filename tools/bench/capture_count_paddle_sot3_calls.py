"""Objects, modules and callables after Paddle's SOT tests, with torch, for ``capture_count.py --only paddle_sot3``:
objects and modules made in the frame (test_simulate_initialize), ``str.format`` with unpacked mappings and
``getattr`` defaults (test_str_format), callables and ``None`` passed in (test_guard_user_defined_fn), methods
calling methods replaced on the instance (test_bound_static_method_call), math of Python numbers and builtin
type equalities (test_builtin_dispatch).
"""

from __future__ import annotations

import math

import torch


# -- objects and modules made in the frame (test_simulate_initialize) -------------------------------------------
class _Appends:
    def __init__(self, vals):
        vals.append(1)


def c_ps3_softmax_module_on_python_floats(x):
    t = torch.nn.Softmax(dim=0)
    a, b = 1.0, 2.0
    return t(torch.tensor([a, b], dtype=torch.float32)) + t(torch.tensor([a, b])) + x[:2]


def c_ps3_init_appends_to_argument(x, vals):
    _Appends(vals)
    return torch.tensor(vals).mean() + x


c_ps3_init_appends_to_argument.extra_args = lambda: ([1.0, 2.0],)


class _NopLayer(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = None


def c_ps3_made_module_none_attribute(x):
    weight = _NopLayer().weight
    if weight is not None:
        x = x + 1
    return x + torch.tensor([1, 2, 3], dtype=torch.float32)


def c_ps3_linear_made_in_frame_shape(x):
    torch.manual_seed(0)
    t = torch.nn.Linear(3, 2)
    return t(x).shape, t.weight.shape


# -- str.format and getattr defaults (test_str_format) ---------------------------------------------------------
def c_ps3_format_unpacked_dict_then_getattr_default(x):
    def find_spec(self, fullname, path, target=None):
        method_name = "spec_for_{fullname}".format(**{"self": self, "fullname": fullname})
        method = getattr(self, method_name, lambda: None)
        return method()

    return x + 1, find_spec("self", "fullname", "path", None)


def c_ps3_getattr_default_callable_found(x):
    class Finder:
        def spec_for_torch(self):
            return "found"

    f = Finder()
    a = getattr(f, "spec_for_{}".format("torch"), lambda: None)()
    b = getattr(f, "spec_for_{name}".format(name="numpy"), lambda: "default")()
    return x + len(a), a, b


# -- callables passed in (test_guard_user_defined_fn) ---------------------------------------------------------
def _guard_fn(fn, inp):
    if fn is None:
        return 0
    return fn(inp)


def c_ps3_functional_or_none_argument(x):
    return (_guard_fn(torch.nn.functional.relu, x - 1), _guard_fn(torch.nn.functional.gelu, x - 1),
            _guard_fn(None, x))


class _CallableWithDel:
    deleted = 0

    def __call__(self, var):
        return torch.nn.functional.relu(var)

    def __del__(self):
        type(self).deleted += 1


def c_ps3_callable_object_argument(x, fn):
    return _guard_fn(fn, x - 1)


c_ps3_callable_object_argument.extra_args = lambda: (_CallableWithDel(),)


# -- methods calling replaced methods (test_bound_static_method_call) -------------------------------------------
class _Repro(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dim = 2
        self.conv = torch.nn.Conv1d(2, 2, 3, padding=1)

    def forward(self, x):
        return self.conv(torch.nn.functional.relu(x[:, : self.dim]))

    def step(self, x):
        out = self.forward(x)
        return out.mean()


def c_ps3_method_calls_instance_replaced_forward(x, m):
    m.forward = m.forward.__func__.__get__(m)  # bound again and stored on the instance
    return m.step(x.reshape(1, 1, 3).expand(1, 3, 3)) + x


c_ps3_method_calls_instance_replaced_forward.extra_args = lambda: (_Repro(),)


def c_ps3_method_calls_forward_of_argument(x, m):
    return m.step(x.reshape(1, 1, 3).expand(2, 3, 3)), m(x.reshape(1, 1, 3).expand(1, 3, 3)).shape


c_ps3_method_calls_forward_of_argument.extra_args = lambda: (_Repro(),)


# -- math of Python numbers (test_builtin_dispatch) -------------------------------------------------------------
def c_ps3_math_sqrt_log_of_ints(x):
    return x + math.sqrt(9) + math.log(math.e), math.floor(1.2) + 1, math.ceil(1.2) + 1, math.log(8, 2)


def c_ps3_builtin_type_equalities(x):
    a, b, c, d = 1, [], (), {}
    eq = (a == b, a == c, a == d, b == a, b == c, b == d, c == a, c == b, c == d)
    ne = (a != b, a != c, a != d, b != a, b != c, b != d, c != a, c != b, c != d)
    return x + sum(ne), eq, ne


def c_ps3_is_between_arguments(x, y):
    made = [x]  # a list made in the frame against the arguments and None
    return (x is y, x is None, made is x, None is x, made is None, None is made, y is not None,
            x + 1)


c_ps3_is_between_arguments.extra_args = lambda: (torch.ones(1, 2),)


CONSTRUCTS = [fn for name, fn in list(globals().items()) if name.startswith("c_")]
