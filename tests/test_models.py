"""Real models through loom.compile, end to end: one graph each, eager's results, cache hits after."""

import pytest
import torch
from breaks_harness import show

import loom
import loom_framehook as framehook
from loom.examples.models import TinyGPT, TinyMLP, TransformerBlock, gpt2


@pytest.mark.parametrize(
    ("make", "make_input"),
    [
        (lambda: TinyMLP(), lambda: torch.randn(4, 64)),
        (lambda: TransformerBlock(), lambda: torch.randn(2, 8, 32)),
        (lambda: TinyGPT(layers=2), lambda: torch.randint(0, 128, (2, 16))),
    ],
    ids=["mlp", "transformer-block", "tiny-gpt"],
)
def test_models_compile_in_one_graph_and_match_eager(make, make_input):
    model = make().eval()
    compiled = loom.compile(model, backend="eager")
    x = make_input()
    with torch.no_grad():
        torch.testing.assert_close(compiled(x), model(x))
        y = make_input()
        torch.testing.assert_close(compiled(y), model(y))
    stats = loom.stats()
    assert stats["graphs"] == 1 and stats["graph_breaks"] == 0 and stats["cache_hits"] == 1
    assert len(framehook.entries(type(model).forward.__code__)) == 1


def test_huggingface_gpt2():
    model = gpt2(layers=2, dim=32, heads=2, vocab=100, context=32)
    compiled = loom.compile(model, backend="eager")
    ids = torch.randint(0, 100, (2, 12))
    with torch.no_grad():
        expected = model(ids).logits
        torch.testing.assert_close(compiled(ids).logits, expected)
        torch.testing.assert_close(compiled(ids).logits, expected)
    assert loom.stats()["cache_hits"] >= 1 and loom.stats()["graph_breaks"] == 0


def test_a_model_with_an_uncapturable_forward_still_matches_eager(capsys):
    class Chatty(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = TinyMLP(width=8, depth=2)

        def forward(self, x):
            show("forward called")
            return self.body(x) * 2

    model = Chatty()
    x = torch.randn(3, 8)
    torch.testing.assert_close(loom.compile(model, backend="eager")(x), model(x))
    assert capsys.readouterr().out == "forward called\nforward called\n"
    # the print splits forward: the submodule is inlined into the resume function's graph
    stats = loom.stats()
    assert stats["graph_breaks"] == 1 and stats["graphs"] == 1 and stats["frames_compiled"] == 2


def test_train_and_eval_modes_are_guarded():
    def make():
        torch.manual_seed(1)
        return torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU())

    model, reference = make(), make()
    compiled = loom.compile(model, backend="eager")
    for mode in ("train", "eval", "train", "eval"):
        getattr(compiled, mode)()
        getattr(reference, mode)()
        x = torch.randn(5, 6)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), reference(x))
    # batch statistics in train mode, running statistics in eval mode: each mode has its own entry
    torch.testing.assert_close(model[1].running_mean, reference[1].running_mean)
    assert loom.stats()["recompiles"] == 1 and loom.stats()["cache_hits"] == 2
