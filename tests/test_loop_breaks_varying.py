"""A loop with a graph break in its body, where something changes in every pass, compiles a bounded
number of entries whatever its length (docs/symbolic.md, "A graph break inside a loop").

A list the loop appends to, a tuple or string grown with ``+=``, a dict stored into by the counter: once
their length has been seen to differ between entries of the loop's resume function, it hands them on
unread (``variables/passed_on.py``); an item picked by the loop counter (``layers[i]``) is fetched as the
program runs and handed on (``resumed_loops.refuse_per_pass_subscript``). Before, each of these compiled
the resume function once per pass until the recompile limit. Every test also checks eager's values and
prints on a first and a second call (``compare``); the ones that read the value in the body check that the
translation, starting over with the value modelled, still gives eager's answer.
"""

from __future__ import annotations

import pytest
import torch
from breaks_harness import compare, show

import loom

#: Frames compiled for one such loop: the function, the resume function after the break (constant
#: position, then once the position and the grown value vary), the body entered per pass, the code after
#: the loop, and one more for a subscript by the counter (a break of its own before it).
MAX_ENTRIES = 6
MAX_RECOMPILES = 2

torch.manual_seed(0)
LAYERS = torch.nn.ModuleList(torch.nn.Linear(6, 6) for _ in range(100))


def appended(x, n):
    outs = []
    for layer in LAYERS[:n]:
        x = torch.relu(layer(x))
        show("layer")
        outs.append(x)
    return x, outs


def extended(x, n):
    outs = []
    for layer in LAYERS[:n]:
        x = layer(x)
        show("layer")
        outs += [x, x.sum()]
        outs.extend((x.mean(),))
    return outs


def indexed(x, n):
    for i in range(n):
        x = torch.relu(LAYERS[i](x))
        show("layer", i)
    return x


def tuple_grown(x, n):
    states = ()
    for layer in LAYERS[:n]:
        x = layer(x)
        show("layer")
        states += (x,)
        states = states + (x * 2,)
    return x, states


def dict_stored(x, n):
    found = {}
    for i, layer in enumerate(LAYERS[:n]):
        x = layer(x)
        show("layer")
        found[i] = x
    return x, found


def string_built(x, n):
    name = ""
    for layer in LAYERS[:n]:
        x = layer(x)
        show("layer")
        name += "L"
    return x, name


def counter_used(x, n):
    k = 0
    for layer in LAYERS[:n]:
        x = layer(x) * (1 + k * 0.01)
        show("layer")
        k += 1
    return x, k


def everything_at_once(x, n):
    outs, states, found, name = [], (), {}, ""
    for i in range(n):
        x = LAYERS[i](x)
        show("layer")
        outs.append(x)
        states += (x,)
        found[i] = x.sum()
        name += "L"
    return x, outs, states, found, name


SHAPES = [appended, extended, indexed, tuple_grown, dict_stored, string_built, counter_used, everything_at_once]


@pytest.mark.parametrize("n", [32, 100])
@pytest.mark.parametrize("fn", SHAPES)
def test_a_value_that_changes_per_pass_compiles_a_bounded_number_of_entries(fn, n):
    stats = compare(fn, torch.randn(6), n)  # eager's values and prints, first and second call
    assert stats["frames_compiled"] <= MAX_ENTRIES, stats
    assert stats["recompiles"] <= MAX_RECOMPILES, stats


@pytest.mark.parametrize("fn", [appended, indexed, tuple_grown, dict_stored])
def test_a_second_identical_call_compiles_nothing(fn):
    loom.reset()
    compiled = loom.compile(fn, backend="eager")
    x = torch.randn(6)
    first = compiled(x, 32)
    before = loom.stats()
    second = compiled(x, 32)
    after = loom.stats()
    torch.testing.assert_close(second, first)
    assert (after["frames_compiled"], after["recompiles"]) == (before["frames_compiled"], before["recompiles"])


# -- a value read in the body is modelled again (the translation starts over): eager's answers ---------
#: Below the recompile limit: a value the body reads still compiles once per pass.
READ_PASSES = 7


def length_read_in_the_body(x):
    outs = []
    for layer in LAYERS[:READ_PASSES]:
        x = layer(x)
        show("layer")
        outs.append(x)
        if len(outs) % 4 == 0:
            x = x + outs[-2]
    return x, outs


def tuple_indexed_in_the_body(x):
    states = ()
    for layer in LAYERS[:READ_PASSES]:
        x = layer(x)
        show("layer")
        states += (x,)
        x = x + states[0] * 0.1
    return x, len(states)


def dict_membership_in_the_body(x):
    found = {}
    for i, layer in enumerate(LAYERS[:READ_PASSES]):
        x = layer(x)
        show("layer")
        found[i % 5] = x
        if 3 in found:
            x = x - found[3] * 0.5
    return x, found


def string_compared_in_the_body(x):
    name = ""
    for layer in LAYERS[:READ_PASSES]:
        x = layer(x)
        show("layer")
        name += "ab"
        if name.endswith("abab") and len(name) > 6:
            x = x * 0.5
    return x, name


class Holder:
    def __init__(self):
        self.outs = []


def aliased_through_an_attribute(x):
    holder = Holder()
    outs = holder.outs
    for layer in LAYERS[:READ_PASSES]:
        x = layer(x)
        show("layer")
        outs.append(x)
        x = x + len(holder.outs)  # the same list, reached another way, after the append
    return x, holder.outs


def extended_by_a_list_changed_later(x):
    outs = []
    for layer in LAYERS[:READ_PASSES]:
        x = layer(x)
        show("layer")
        pair = [x]
        outs.extend(pair)
        pair.append(x * 2)  # extend copied the items it had: outs does not see this one
        outs.append(pair)
    return x, outs


@pytest.mark.parametrize("fn", [length_read_in_the_body, tuple_indexed_in_the_body, dict_membership_in_the_body,
                                string_compared_in_the_body, aliased_through_an_attribute,
                                extended_by_a_list_changed_later])
def test_a_value_read_in_the_body_keeps_eagers_answer(fn):
    compare(fn, torch.randn(6))


def test_the_item_fetched_by_the_counter_is_the_counters_item():
    # Every layer is a different Linear: a module fetched for the wrong index would give another value.
    stats = compare(indexed, torch.randn(6), 40)
    assert stats["frames_compiled"] <= MAX_ENTRIES, stats


def test_the_per_pass_subscript_breaks_only_in_a_resume_function():
    # A plain function indexing a ModuleList by an int argument still specialises it (no break).
    def pick(x, i):
        return LAYERS[i](x)

    loom.reset()
    compiled = loom.compile(pick, backend="eager")
    for i in (1, 2, 3):
        torch.testing.assert_close(compiled(torch.ones(6), i), LAYERS[i](torch.ones(6)))
    assert loom.stats()["graph_breaks"] == 0


# -- a 32-block model with a graph break in every block ------------------------------------------------
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fc = torch.nn.Linear(6, 6)
        self.norm = torch.nn.LayerNorm(6)

    def forward(self, x):
        h = torch.relu(self.fc(x))
        show("block")  # a break inside every block: the loop's body breaks at the block's call
        return self.norm(x + h)


class IndexedBlocks(torch.nn.Module):
    """Blocks reached by the counter, hidden states gathered in a tuple (transformers' style)."""

    def __init__(self, n):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(n))

    def forward(self, x):
        hidden = ()
        for i in range(len(self.blocks)):
            hidden = hidden + (x,)
            x = self.blocks[i](x)
        return x, hidden


class IteratedBlocks(torch.nn.Module):
    """Blocks iterated directly, outputs appended to a list (torchvision's style)."""

    def __init__(self, n):
        super().__init__()
        self.blocks = torch.nn.ModuleList(Block() for _ in range(n))

    def forward(self, x):
        outs = []
        for block in self.blocks:
            x = block(x)
            outs.append(x)
        return x, outs


#: Inference: the model's frame; the block's frame and its resume function; the resume function after
#: the block's call (twice); the body entered per pass; after a subscript by the counter; after the loop.
MODEL_ENTRIES = 8
#: With grad: the block's two frames once more, for a first input that does not require grad.
MODEL_ENTRIES_WITH_GRAD = MODEL_ENTRIES + 2


@pytest.mark.parametrize("grad", [False, True], ids=["inference", "grad"])
@pytest.mark.parametrize("cls", [IndexedBlocks, IteratedBlocks])
def test_a_model_with_a_break_in_every_block_compiles_a_few_entries(cls, grad):
    torch.manual_seed(0)
    model = cls(32).eval()
    with torch.set_grad_enabled(grad):
        stats = compare(model, torch.randn(2, 6))  # eager's outputs and prints, first and second call
        # before: 13 frames, 8 recompiles (7 with the blocks iterated), then uncompiled past the limit
        assert stats["frames_compiled"] <= (MODEL_ENTRIES_WITH_GRAD if grad else MODEL_ENTRIES), stats
        assert stats["recompiles"] <= (3 if grad else 1), stats
        loom.reset()
        compiled = loom.compile(model, backend="eager")
        x = torch.randn(2, 6)
        compiled(x)
        before = loom.stats()
        compiled(x)
        after = loom.stats()
    assert (after["frames_compiled"], after["recompiles"]) == (before["frames_compiled"], before["recompiles"])
