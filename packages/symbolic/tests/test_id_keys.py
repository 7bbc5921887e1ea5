"""``id(obj)`` as dict keys and set members: of objects made while tracing and tensors (their number known
only at run time, keyed by which object they stand for), and of objects reached from the frame (a constant
under an identity guard). The parameter and module de-duplication idiom (``if id(m) in seen``) is captured
whole, as torch.compile captures it; a graph break once named ``a dict key known only at run time``."""

import pytest
import torch
from harness import CaseRegistry, check, run_rewritten

from loom_symbolic import translate_function

CASES = CaseRegistry(default_graphs=1)
case = CASES

X = torch.ones(3)


class Obj:
    pass


SHARED = torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.ReLU(), torch.nn.Linear(3, 3))
SHARED[2] = SHARED[0]  # one module (and its parameters) reached twice


@case(X)
def ids_of_made_objects_as_keys(x):
    a = [1]
    b = [2]
    d = {id(a): 1, id(b): 2}
    s = {id(a)}
    return x + d[id(b)] + (id(a) in s) + (id(b) in s)


@case(X)
def ids_of_tensors_as_keys(x):
    y = x + 1
    d = {id(x): 1, id(y): 2}
    s = {id(x)}
    return x + d[id(y)] + (id(x) in s) + (id(y) in s), len(d)


@case(X)
def an_in_place_result_is_the_tensor_passed_in(x):
    d = {id(x): 1}
    y = x.add_(1)
    return y + d.get(id(y), 0) + (id(y) in d)


@case(X)
def ids_of_plain_objects_made_here(x):
    a, b = Obj(), Obj()
    d = {id(a): x}
    d.setdefault(id(b), x * 2)
    v = d.pop(id(b))
    return v + d.get(id(b), 7) + (id(b) not in d) + len(d)


@case(X)
def module_dedup_over_modules(x):
    seen = set()
    out = x
    for m in SHARED.modules():
        if id(m) in seen:
            continue
        seen.add(id(m))
        if isinstance(m, torch.nn.Linear):
            out = m(out)
    return out, len(seen)


@case(X)
def parameter_dedup(x):
    seen = set()
    n = 0
    for p in SHARED.parameters():
        if id(p) not in seen:
            seen.add(id(p))
            n += 1
    twice = [SHARED[0].weight, SHARED[0].weight, SHARED[2].bias]
    return x * n + len({id(q) for q in twice})


@case(torch.nn.Sequential(torch.nn.Linear(3, 3), torch.nn.Linear(3, 3)), X)
def dedup_of_a_module_passed_in(model, x):
    uniq = {}
    for m in [model[0], model[1], model[0]]:
        uniq.setdefault(id(m), m)
    for p in model.parameters():
        uniq.setdefault(id(p), None)
    for m in uniq.values():
        if m is not None:
            x = m(x)
    return x, len(uniq)


@case(X)
def ids_of_fixed_objects(x):
    d = {id(None): 1, id(Obj): 2, id(torch.relu): 3, id(len): 4}
    return x + d[id(Obj)] + d[id(torch.relu)] + (id(None) in d) + (id(True) in d)


@pytest.mark.parametrize(("fn", "args", "kwargs", "graphs"), CASES)
def test_id_keys(fn, args, kwargs, graphs):
    check(fn, *args, graphs=graphs, **kwargs)


def escaping_keys(x):
    a = [1]
    y = x + 1
    return y, a, {id(a): a}, {id(y), id(x)}


def test_keys_leaving_the_graph_are_the_real_ids():
    """A dict or set of these ids the program keeps holds the real objects' ids, rebuilt after the graph."""
    translation = translate_function(escaping_keys, X)
    assert not translation.breaks, translation.dump()
    x = torch.ones(3)
    y, a, d, s = run_rewritten(escaping_keys, translation, (x,), {})
    assert d == {id(a): a} and d[id(a)] is a
    assert s == {id(x), id(y)}


def id_of_tuple_key(x):
    t = (x, 1)
    return x + len({id(t)})


def tensor_and_its_id(x):
    d = {x: 1, id(x): 2}  # eager compares them (a tensor hashes as its id): Tensor.__eq__'s error here
    return x + len(d)


def id_arithmetic(x):
    a = [1]
    return x + id(a) % 2


@pytest.mark.parametrize(("fn", "named"), [(id_of_tuple_key, "id() of tuple"),
                                           (tensor_and_its_id, "a tensor and its id()"),
                                           (id_arithmetic, "id() of list")])
def test_what_the_trace_cannot_tell_breaks_naming_it(fn, named):
    """An id whose object the trace cannot tell apart (a tuple), or whose number is used, is a break."""
    translation = translate_function(fn, X)
    assert translation.breaks and named in str(translation.breaks[0]), translation.dump()
