"""``id()`` keys across calls of one compiled function: the id of a tensor passed in is its real id under an
identity guard (a set of ids kept between calls may hold that very number), parameters' ids de-duplicate a
module's parameters, and two arguments that are one tensor find one entry. Captured without a break (a break
``a dict key known only at run time`` before), answering as eager on every call."""

from __future__ import annotations

import torch

import loom

_SEEN: set = set()


def _first_time(x):
    if id(x) in _SEEN:
        return x - 1
    _SEEN.add(id(x))
    return x + 1


def test_a_set_of_ids_kept_between_calls():
    _SEEN.clear()
    compiled = loom.compile(_first_time)
    a, b = torch.ones(2), torch.zeros(2)
    assert torch.equal(compiled(a), a + 1)
    assert torch.equal(compiled(a), a - 1)  # its id is in the set now
    assert torch.equal(compiled(b), b + 1)
    assert _SEEN == {id(a), id(b)}
    _SEEN.clear()
    assert loom.explain(_first_time)(a).break_count == 0


def _same_argument(x, y):
    s = {id(x)}
    return x + (id(y) in s)


def test_one_tensor_passed_twice_finds_its_entry():
    compiled = loom.compile(_same_argument)
    a = torch.ones(2)
    assert torch.equal(compiled(a, torch.ones(2)), a)
    assert torch.equal(compiled(a, a), a + 1)
    assert loom.explain(_same_argument)(a, a).break_count == 0


def _distinct_parameters(x, model):
    ids = set()
    for p in model.parameters():
        ids.add(id(p))
    return x + len(ids) + (id(model[0].weight) in ids)


def test_parameter_ids_of_a_module_passed_in():
    compiled = loom.compile(_distinct_parameters)
    x = torch.ones(2)
    shared = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    shared[1] = shared[0]
    other = torch.nn.Sequential(torch.nn.Linear(2, 2), torch.nn.Linear(2, 2))
    for model in (shared, other, shared):
        assert torch.equal(compiled(x, model), _distinct_parameters(x, model))
    report = loom.explain(_distinct_parameters)(x, other)
    assert report.graph_count == 1 and report.break_count == 0
