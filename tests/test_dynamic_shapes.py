"""Dynamic shapes end to end: one compiled graph serves every batch size and sequence length."""

from __future__ import annotations

import random
import sys
from pathlib import Path

import pytest
import torch

import loom

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tools" / "bench"))
from bench_models import MLP, Transformer


def compiles():
    return loom.stats()["frames_compiled"]


def test_mlp_every_batch_size_compiles_at_most_twice():
    model = MLP(width=16).eval()
    compiled = loom.compile(model, backend="eager")
    for b in range(1, 17):
        x = torch.randn(b, 16)
        torch.testing.assert_close(compiled(x), model(x))
    assert compiles() <= 2
    assert loom.stats()["recompiles"] == 1


def test_transformer_batch_and_sequence_lengths_compile_at_most_twice():
    model = Transformer(vocab=32, dim=16, heads=2, layers=2, context=128).eval()
    compiled = loom.compile(model, backend="eager")
    rng = random.Random(0)
    shapes = [(1, 8), (2, 16)] + [(rng.randint(2, 16), rng.randint(8, 128)) for _ in range(10)]
    for b, t in shapes:
        idx = torch.randint(0, 32, (b, t))
        torch.testing.assert_close(compiled(idx), model(idx))
    assert compiles() <= 2


def test_gpt2_batch_and_sequence_lengths_compile_at_most_twice():
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=16, vocab_size=32, n_positions=128)
    model = transformers.GPT2LMHeadModel(config).eval()
    compiled = loom.compile(model, backend="eager")
    for b, t in [(1, 8), (2, 9), (5, 33), (16, 128), (3, 64)]:
        idx = torch.randint(0, 32, (b, t))
        with torch.no_grad():
            torch.testing.assert_close(compiled(idx).logits, model(idx).logits)
    assert compiles() <= 2


def test_int_arguments_become_symbols_after_they_change():
    def scale(x, n):
        return x * n + n

    compiled = loom.compile(scale, backend="eager")
    for n in [2, 3, 4, 10, -7]:
        x = torch.randn(3)
        torch.testing.assert_close(compiled(x, n), scale(x, n))
    assert compiles() == 2


def test_dynamic_true_is_symbolic_from_the_first_compile():
    def f(x):
        return x.reshape(-1).softmax(0) * x.shape[0]

    compiled = loom.compile(f, dynamic=True, backend="eager")
    for b in (3, 4, 9):
        x = torch.randn(b, 5)
        torch.testing.assert_close(compiled(x), f(x))
    assert compiles() == 1


def test_dynamic_false_never_makes_sizes_symbolic():
    def f(x):
        return x * 2

    compiled = loom.compile(f, dynamic=False, backend="eager")
    for b in (2, 3, 4):
        compiled(torch.randn(b))
    assert compiles() == 3


def test_mark_dynamic_and_mark_static():
    def f(x):
        return x.sum(0)

    compiled = loom.compile(f, backend="eager")
    x = torch.randn(5, 3)
    loom.mark_dynamic(x, 0)
    compiled(x)
    y = torch.randn(9, 3)
    torch.testing.assert_close(compiled(y), f(y))
    assert compiles() == 1  # symbolic from the start
    loom.reset()
    compiled = loom.compile(f, backend="eager")
    for b in (4, 5, 6):
        z = torch.randn(b, 3)
        loom.mark_static(z, 0)
        compiled(z)
    assert compiles() == 3  # never made dynamic


def test_mark_dynamic_checks_its_arguments():
    with pytest.raises(TypeError, match=r"expects a torch\.Tensor"):
        loom.mark_dynamic([1], 0)
    with pytest.raises(ValueError, match="out of range"):
        loom.mark_dynamic(torch.randn(2), 3)
    with pytest.raises(TypeError, match="expects a dimension"):
        loom.mark_static(torch.randn(2), "0")


def test_sizes_zero_and_one_are_their_own_cases():
    def f(x):
        return x.sum(0) + x.shape[0]

    compiled = loom.compile(f, dynamic=True, backend="eager")
    for b in (0, 1, 2, 7, 1, 0):
        x = torch.randn(b, 3)
        torch.testing.assert_close(compiled(x), f(x))
    assert compiles() == 3  # 0, 1, and one symbolic entry for every size >= 2


def test_a_branch_on_a_size_guards_its_relation():
    def f(x):
        if x.shape[0] > 8:
            return x * 2
        return x * 3

    compiled = loom.compile(f, dynamic=True, backend="eager")
    for b in (10, 12, 4, 5, 20):
        x = torch.randn(b)
        torch.testing.assert_close(compiled(x), f(x))
    assert compiles() == 2  # one entry per side of the branch


def test_explain_shows_symbols_and_relation_guards():
    def f(x, y):
        return (x + y).sum(1)

    x, y = torch.randn(4, 3), torch.randn(4, 3)
    for t in (x, y):
        loom.mark_dynamic(t, 0)
    report = loom.explain(f)(x, y)
    text = report.format(verbose=True)
    assert "L['x'].size()[0]" in text and ">= 2" in text and "==" in text


def test_nbytes_of_a_tensor_with_symbolic_sizes_is_one_graph_for_every_size():
    # (read from the fake tensor, it raised "Cannot call numel() on tensor with symbolic sizes")
    def byte_count(x):
        return x.reshape(1, -1).sum() + x.nbytes, x.nbytes

    compiled = loom.compile(byte_count, backend="eager", dynamic=True, options={"strict": True})
    for n in (3, 7):
        x = torch.arange(float(n))
        got, want = compiled(x), byte_count(x)
        torch.testing.assert_close(got[0], want[0])
        assert got[1] == want[1]
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["recompiles"]) == (1, 0, 0)


def _size_arithmetic(x):
    s = x.shape
    return (1,) + s, s + (2,), s * 2, 2 * s, s + s, list(s) + [1]


@pytest.mark.parametrize("dynamic", [False, True])
def test_size_arithmetic_keeps_torch_size_where_eager_does(dynamic):
    """``(1,) + size`` and ``2 * size`` are ``torch.Size`` (its ``__radd__``/``__rmul__``), symbolic sizes too."""
    x = torch.ones(3, 4)
    want = _size_arithmetic(x)
    got = loom.compile(_size_arithmetic, dynamic=dynamic)(x)
    assert [type(v) for v in got] == [type(v) for v in want] == [torch.Size] * 5 + [list]
    assert got == want
