"""Lists from outside the frame that compiled code appends to: the real list is extended after the graph,
and its length is guarded only where the code reads the list, so a list growing each call compiles once."""

from __future__ import annotations

import pytest
import torch

import loom

BACKENDS = ["eager", "aot_eager"]
X = torch.arange(3.0)


def append_product(x, out):
    out.append(x * 2)
    return x + 1


def append_and_extend(x, out):
    out.append(x.sin())
    out.extend([x * 3, "tag"])
    out.append(out)  # the list itself, as eager appends it
    return x - 1


class Recorder(torch.nn.Module):
    """Keeps each forward's activations, as a feature extractor's hooks do."""

    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 3)
        self.activations = []

    def forward(self, x):
        h = self.linear(x).relu()
        self.activations.append(h)
        return h.sum()


REGISTRY = []


def append_to_global(x):
    REGISTRY.append(x.cos())
    return x * 2


def same(a, b):
    assert type(a) is type(b)
    if isinstance(a, torch.Tensor):
        torch.testing.assert_close(a, b)
    elif isinstance(a, (list, tuple)):
        assert len(a) == len(b)
        for p, q in zip(a, b):
            if p is a:  # a list holding itself
                assert q is b
            else:
                same(p, q)
    else:
        assert a == b


@pytest.fixture(autouse=True)
def fresh():
    loom.reset()
    yield
    loom.reset()


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [append_product, append_and_extend])
def test_a_list_only_appended_to_compiles_once_whatever_its_length(fn, backend):
    compiled = loom.compile(fn, backend=backend)
    want, got = [], []
    for _ in range(12):
        same(compiled(X, got), fn(X, want))
    same(got, want)
    stats = loom.stats()
    assert stats["recompiles"] == 0 and stats["frames_compiled"] == 1, stats


@pytest.mark.parametrize("backend", BACKENDS)
def test_a_module_keeping_activations_compiles_once(backend):
    torch.manual_seed(0)
    model = Recorder()
    reference = Recorder()
    reference.load_state_dict(model.state_dict())
    compiled = loom.compile(model, backend=backend)
    for step in range(10):
        x = X + step
        same(compiled(x), reference(x))
    same(model.activations, reference.activations)
    assert loom.stats()["recompiles"] == 0, loom.stats()


def test_a_global_list_appended_to_compiles_once():
    compiled = loom.compile(append_to_global, backend="eager")
    REGISTRY.clear()
    for _ in range(10):
        compiled(X)
    assert len(REGISTRY) == 10 and all(torch.equal(t, X.cos()) for t in REGISTRY)
    assert loom.stats()["recompiles"] == 0, loom.stats()


def append_then_read(x, out):
    out.append(x)
    return x + len(out), out[-1] * 2, out[0]


def extend_by_itself(x, out):
    out.append(x)
    out.extend(out)
    return x * len(out)


def append_twice_through_two_names(x, a, b):
    a.append(x)
    b.append(x + 1)
    return x


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("fn", [append_then_read, extend_by_itself])
def test_a_list_read_after_appending_is_guarded_on_its_length(fn, backend):
    compiled = loom.compile(fn, backend=backend)
    want, got = [X - 1], [X - 1]
    for _ in range(4):
        same(compiled(X, got), fn(X, want))
        same(got, want)
    assert loom.stats()["recompiles"] >= 1  # each length is another entry: its answer depends on it


@pytest.mark.parametrize("backend", BACKENDS)
def test_one_list_reached_by_two_names_gets_both_appends(backend):
    compiled = loom.compile(append_twice_through_two_names, backend=backend)
    shared, a, b = [], [], []
    compiled(X, shared, shared)
    compiled(X, a, b)  # no longer one list: each gets its own append
    compiled(X, shared, shared)
    assert [t.tolist() for t in shared] == [X.tolist(), (X + 1).tolist()] * 2
    assert [t.tolist() for t in a] == [X.tolist()] and [t.tolist() for t in b] == [(X + 1).tolist()]


def append_across_a_break(x, out):
    out.append(x + 1)
    print("", end="")  # a graph break
    out.append(x + 2)
    return x


def test_appends_on_both_sides_of_a_break_keep_their_order():
    compiled = loom.compile(append_across_a_break, backend="eager")
    got = []
    for _ in range(3):
        compiled(X, got)
    assert [t.tolist() for t in got] == [(X + 1).tolist(), (X + 2).tolist()] * 3
    assert loom.stats()["recompiles"] == 0, loom.stats()


def test_a_tuple_in_place_of_the_list_compiles_again_and_raises_as_eager():
    compiled = loom.compile(append_product, backend="eager")
    compiled(X, [])
    with pytest.raises(AttributeError, match="'tuple' object has no attribute 'append'"):
        compiled(X, ())
