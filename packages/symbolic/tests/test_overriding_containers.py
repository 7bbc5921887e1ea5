"""List and dict subclasses from the frame that override the builtin's special methods and call
``super()`` in them (a ``ModelOutput``/``BaseOutput``-style ``OrderedDict`` dataclass; a list whose
``__getitem__``/``__iter__``/``__len__`` call ``super()``): reads are one graph with eager's values, the
guards read the items through the builtin's own methods (``BuiltinContents``), never the overrides; a
list's writes are replayed through ``list``'s own slice assignment; a dict's overrides run in the trace
and its final items and attributes are replayed through the builtin base and ``object.__setattr__``."""

import collections
import dataclasses

import pytest
import torch
from harness import assert_same, check, run_rewritten

import loom_guards
from loom_symbolic import translate_function

X = torch.ones(3)


class BaseOutput(collections.OrderedDict):
    def __post_init__(self):
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                self[field.name] = value

    def __setitem__(self, key, value):
        super().__setitem__(key, value)
        super().__setattr__(key, value)

    def __setattr__(self, name, value):
        if name in self.keys() and value is not None:
            super().__setitem__(name, value)
        super().__setattr__(name, value)

    def __getitem__(self, key):
        if isinstance(key, str):
            return dict(self.items())[key]
        return self.to_tuple()[key]

    def to_tuple(self):
        return tuple(self[k] for k in self.keys())


@dataclasses.dataclass
class Output(BaseOutput):
    sample: torch.Tensor = None
    extra: torch.Tensor = None


class Doubling(list):
    """Reads give twice the stored item; ``len`` counts one more: what the overrides say must win."""

    def __getitem__(self, i):
        return super().__getitem__(i) * 2

    def __iter__(self):
        stored = super().__iter__()
        return iter([item + 1 for item in stored])

    def __len__(self):
        return super().__len__() + 1


def reads_an_output(x, out):
    return x + out["sample"] + out.sample + out[0] + len(out) + out.extra * 2 + out.to_tuple()[1]


def reads_a_doubling_list(x, items):
    total = x
    for item in items:
        total = total + item
    return total + items[1] * len(items)


def writes_a_doubling_list(x, items):
    items.append(x * 3)
    items[0] = x - 1
    return len(items), items[2]


def test_reading_an_output_is_one_graph_with_eager_values():
    out = Output(sample=X * 2, extra=X + 4)
    translation = check(reads_an_output, X, out)
    guard = loom_guards.compile(translation.guards)
    assert guard({"x": X, "out": out})
    assert not guard({"x": X, "out": Output(sample=X * 2)})  # other keys: the guard fails


def test_reading_a_list_whose_overrides_change_the_values():
    items = Doubling([X, X * 5])
    translation = check(reads_a_doubling_list, X, items)
    guards = "\n".join(str(g) for g in translation.guards)
    assert "builtin contents" in guards, guards
    guard = loom_guards.compile(translation.guards)
    assert guard({"x": X, "items": items})
    assert not guard({"x": X, "items": Doubling([X])})  # another length (read without __len__)


def test_writes_to_a_list_subclass_are_replayed_through_list_itself():
    check(writes_a_doubling_list, X, Doubling([X, X * 5]))


def writes_an_output(x, out):
    out["sample"] = x * 3
    return out.sample + 1


def writes_an_output_every_way(x, out):
    out["added"] = x * 2  # a new key: appended after "sample"
    out["sample"] = x + 1  # item and attribute (the override's two super() calls)
    out.extra = x - 1  # not a key: an attribute only
    out.sample = out["added"] + out.sample  # a key: __setattr__ writes the item too
    return out.to_tuple()[0] + out.extra, out.sample is out["sample"]


def _state(out):
    """What eager leaves in an output: its items in order (read past the overrides) and attributes."""
    return list(dict.items(out)), sorted(out.__dict__.items())


@pytest.mark.parametrize("fn", [writes_an_output, writes_an_output_every_way], ids=lambda fn: fn.__name__)
def test_writes_to_an_output_from_outside_are_replayed_as_eager_left_them(fn):
    out, eager_out = Output(sample=X), Output(sample=X)
    translation = translate_function(fn, X, out)
    assert not translation.breaks and len(translation.graphs) == 1, translation.dump()
    expected = fn(X, eager_out)
    assert_same(run_rewritten(fn, translation, (X, out), {}), expected)
    assert_same(_state(out), _state(eager_out))
    assert list(out.keys()) == list(eager_out.keys())


class CountedOutput(Output):
    """Counts its __setitem__ calls: the replay after the graph must not run the override again."""

    calls = []

    def __setitem__(self, key, value):
        CountedOutput.calls.append(key)
        super().__setitem__(key, value)


def test_the_replay_does_not_run_the_override_again():
    out = CountedOutput(sample=X)
    CountedOutput.calls.clear()
    translation = translate_function(writes_an_output, X, out)
    assert not translation.breaks, translation.dump()
    CountedOutput.calls.clear()
    run_rewritten(writes_an_output, translation, (X, out), {})
    assert CountedOutput.calls == ["sample"] and torch.equal(out.sample, X * 3) and torch.equal(out["sample"], X * 3)


class Lenient(dict):
    __getitem__ = dict.get  # an override in C: the model would bypass it, so the object is not modelled


def reads_a_lenient_dict(x, d):
    return x + (d["absent"] is None) + d["a"]


def test_an_override_written_in_c_is_not_bypassed():
    d = Lenient(a=2)
    translation = translate_function(reads_a_lenient_dict, X, d)
    from harness import run_rewritten

    assert any("subscript of Lenient" in str(b) for b in translation.breaks), translation.dump()
    torch.testing.assert_close(run_rewritten(reads_a_lenient_dict, translation, (X, d), {}), reads_a_lenient_dict(X, d))


class DoublingUpdates(dict):
    """A dict subclass overriding ``update`` (not its read protocol): the replay of a write must not call
    it (it did: ``clear()`` then ``update(final items)`` doubled every item once more)."""

    def update(self, other=(), **kwargs):
        for key, value in dict(other, **kwargs).items():
            self[key] = value * 2


def writes_a_doubling_dict(x, d):
    d["a"] = x + 1
    d.update(b=x)
    return d["a"] + d["b"]


def test_writes_to_a_dict_subclass_are_replayed_past_its_update():
    check(writes_a_doubling_dict, X, DoublingUpdates(z=X))
