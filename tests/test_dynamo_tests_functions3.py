"""Constructs from PyTorch's test/dynamo/test_functions.py and test_misc.py that loom got wrong or broke on
where torch.compile does not (``tools/bench/capture_count_dynamo_tests_functions3.py``): each compiled with
the ``eager`` backend, checked against eager, and pinned at its graph and break counts.
"""

from __future__ import annotations

import collections
import functools

import torch

import loom


def explained(fn, *args):
    """``loom.explain`` of one call with the eager backend."""
    return loom.explain(fn, backend="eager")(*args)


def counts(report):
    return report.graph_count, report.break_count


def same(a, b):
    """Equal results, tensors compared by value, containers item by item."""
    if isinstance(a, torch.Tensor):
        return isinstance(b, torch.Tensor) and torch.equal(a, b)
    if isinstance(a, (tuple, list)):
        return type(a) is type(b) and len(a) == len(b) and all(same(p, q) for p, q in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same(a[k], b[k]) for k in a)
    return a == b


# -- functools.partial of a partial: CPython takes the inner one's function and arguments in ---------------------
def _combine(a, b, c, scale=1, shift=0):
    return (a + b + c) * scale + shift


def partial_of_partial(x):
    first = functools.partial(_combine, x, scale=2)
    second = functools.partial(first, 1, scale=3, shift=4)
    return second(2), second.func is _combine, second.args, second.keywords


def test_partial_of_a_partial_made_in_the_frame_is_flattened_as_eager_does():
    x = torch.arange(3.0)
    report = explained(partial_of_partial, x)
    assert same(report.result, partial_of_partial(x))
    assert report.result[1] is True and len(report.result[2]) == 2
    assert counts(report) == (1, 0)


def wrap_again(x, p):
    q = functools.partial(p, 5)
    return q(x, 1), q.func is _combine, len(q.args)


def test_partial_of_a_partial_argument_follows_whether_eager_flattens_it():
    x = torch.arange(3.0)
    plain = functools.partial(_combine, shift=1)
    with_dict = functools.partial(_combine, shift=1)
    _ = with_dict.__dict__  # made now: CPython no longer takes this partial's parts in
    for p in (plain, with_dict):
        loom.reset()
        report = explained(wrap_again, x, p)
        assert same(report.result, wrap_again(x, p))
    assert wrap_again(x, plain)[1] is True and wrap_again(x, with_dict)[1] is False


# -- attributes of a partial made in the frame: what its class lacks is an AttributeError -------------------------
def partial_attributes(x):
    p = functools.partial(lambda a, b: a * b, b=3)
    found = tuple(hasattr(p, name) for name in ("func", "args", "keywords", "__call__", "__name__", "__code__"))
    return p.__call__(x), found, getattr(p, "__qualname__", "none")


def test_partial_attributes_read_in_the_graph():
    x = torch.arange(3.0)
    report = explained(partial_attributes, x)
    assert same(report.result, partial_attributes(x))
    assert report.result[1] == (True, True, True, True, False, False)
    assert counts(report) == (1, 0)


# -- tensor.is_complex is a method, as is_floating_point is: called, kept bound, tested for truth ------------------
def tensor_predicates(x):
    y = x + 1
    bound = y.is_complex
    flags = (y.is_complex(), torch.is_complex(y), bound(), bool(bound), callable(bound), type(bound).__name__)
    return (y * 2 if not flags[0] else y), flags, (1 if y.add else 2)


def test_tensor_is_complex_called_and_bound_is_one_graph():
    x = torch.arange(3.0)
    report = explained(tensor_predicates, x)
    assert same(report.result, tensor_predicates(x))
    assert counts(report) == (1, 0)


# -- ** of a user mapping: its keys(), then self[key] for each ------------------------------------------------
class Scales:
    """A mapping by keys() and __getitem__ alone: values are computed on each read."""

    def __init__(self, base):
        self.base = base

    def keys(self):
        return ["b", "a"]

    def __getitem__(self, key):
        return self.base * (2 if key == "a" else 3)


def _weighted(x, a=1, b=1, c=1):
    return x * a + b * c


def double_star_of_mappings(x):
    m = Scales(x)
    merged = {"c": 5, **m}
    return _weighted(x, **m), _weighted(x, c=2, **m), list(merged), merged["a"]


def test_double_star_of_a_user_mapping_is_one_graph():
    x = torch.arange(3.0)
    report = explained(double_star_of_mappings, x)
    assert same(report.result, double_star_of_mappings(x))
    assert report.result[2] == ["c", "b", "a"]
    assert counts(report) == (1, 0)


def double_star_repeats_a_keyword(x):
    try:
        return _weighted(x, a=2, **Scales(x))
    except TypeError as exc:
        return x - 1, type(exc).__name__


def test_double_star_of_a_user_mapping_repeating_a_keyword_raises_as_eager():
    x = torch.arange(3.0)
    report = explained(double_star_repeats_a_keyword, x)
    assert same(report.result, double_star_repeats_a_keyword(x))
    assert counts(report) == (1, 0)


# -- a list subscripted by a tensor made from a Python number: its __index__, known while tracing ------------------
def index_by_small_tensors(x):
    items = [x, x + 1, x + 2]
    picked = items[torch.as_tensor(2)] + items[torch.tensor(True)] + items[torch.tensor([[-1]])]
    return picked + (5, 6)[torch.tensor(1, dtype=torch.int8)]


def test_list_indexed_by_a_tensor_of_known_integer_is_one_graph():
    x = torch.arange(3.0)
    report = explained(index_by_small_tensors, x)
    assert same(report.result, index_by_small_tensors(x))
    assert counts(report) == (1, 0)


def index_by_written_or_float_tensor(x):
    items = [x, x + 1, x + 2]
    k = torch.as_tensor(2)
    k.sub_(1)  # written in the graph: its remembered value is stale
    try:
        bad = items[torch.tensor(1.0)]
    except TypeError as exc:
        bad = type(exc).__name__
    return items[k], bad


def test_list_indexed_by_a_written_or_float_tensor_is_eager_s_answer():
    x = torch.arange(3.0)
    report = explained(index_by_written_or_float_tensor, x)
    assert same(report.result, index_by_written_or_float_tensor(x))


# -- collections.namedtuple(...) in the frame: the class is made while tracing, as a class statement is ------------
def namedtuple_made_in_frame(x):
    Row = collections.namedtuple("Row", ["a", "b", "c"], defaults=[0])
    r = Row._make([x, 2, 1])._replace(c=5)
    return r.a + r.b + r.c, Row._fields, Row._field_defaults, Row.__module__, r, Row(x, 1).c


def test_namedtuple_made_in_the_frame_is_one_graph():
    x = torch.arange(3.0)
    report = explained(namedtuple_made_in_frame, x)
    expected = namedtuple_made_in_frame(x)
    assert same(report.result[:4], expected[:4]) and report.result[5] == expected[5]
    assert report.result[3] == __name__ and repr(report.result[4]) == repr(expected[4])
    assert counts(report) == (1, 0)


def namedtuple_with_repeated_field(x):
    try:
        collections.namedtuple("Bad", "a a")
    except ValueError as exc:
        return x + 1, str(exc)
    return x, None


def test_namedtuple_with_bad_fields_raises_as_eager():
    x = torch.arange(3.0)
    report = explained(namedtuple_with_repeated_field, x)
    assert same(report.result, namedtuple_with_repeated_field(x))
