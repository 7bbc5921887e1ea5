"""Real models through loom.compile, end to end: one graph each, eager's results, cache hits after."""

import pytest
import torch

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
    compiled = loom.compile(model)
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
    compiled = loom.compile(model)
    ids = torch.randint(0, 100, (2, 12))
    with torch.no_grad():
        expected = model(ids).logits
        torch.testing.assert_close(compiled(ids).logits, expected)
        torch.testing.assert_close(compiled(ids).logits, expected)
    assert loom.stats()["cache_hits"] >= 1 and loom.stats()["graph_breaks"] == 0


def test_huggingface_bert_called_with_keyword_arguments():
    # BERT's forward decorator adds to **kwargs: the replay must read the inputs before refilling the dict
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(num_hidden_layers=1, num_attention_heads=2, hidden_size=16,
                                     intermediate_size=32, vocab_size=32, max_position_embeddings=16)
    model = transformers.BertModel(config).eval()
    compiled = loom.compile(model)
    inputs = {"input_ids": torch.randint(0, 32, (2, 8)), "attention_mask": torch.ones(2, 8, dtype=torch.long)}
    with torch.no_grad():
        expected = model(**inputs).last_hidden_state
        for _ in range(2):
            torch.testing.assert_close(compiled(**inputs).last_hidden_state, expected)
    assert loom.stats()["cache_hits"] >= 1 and loom.stats()["graph_breaks"] == 0


def test_huggingface_llama_compiles_in_one_graph():
    # its attention reads os.environ and its MLP may call a functools.partial: both are modelled
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.LlamaConfig(num_hidden_layers=1, hidden_size=32, intermediate_size=64,
                                      num_attention_heads=4, num_key_value_heads=2, vocab_size=100)
    model = transformers.LlamaForCausalLM(config).eval()
    ids = torch.randint(0, 100, (2, 12))
    compiled = loom.compile(model)
    with torch.no_grad():
        expected = model(input_ids=ids).logits
        for _ in range(2):
            torch.testing.assert_close(compiled(input_ids=ids).logits, expected)
    stats = loom.stats()
    assert (stats["graphs"], stats["graph_breaks"], stats["cache_hits"]) == (1, 0, 1), stats


def test_huggingface_t5_with_graph_breaks_matches_eager():
    # its cache's __init__ calls super().__init__ after a break; its config has a __getattribute__
    transformers = pytest.importorskip("transformers")
    torch.manual_seed(0)
    config = transformers.T5Config(num_layers=1, d_model=32, d_ff=64, num_heads=4, d_kv=8, vocab_size=100)
    model = transformers.T5Model(config).eval()
    inputs = {"input_ids": torch.randint(0, 100, (2, 10)), "decoder_input_ids": torch.randint(0, 100, (2, 6))}
    compiled = loom.compile(model)
    with torch.no_grad():
        expected = model(**inputs).last_hidden_state
        for _ in range(2):
            torch.testing.assert_close(compiled(**inputs).last_hidden_state, expected)


def test_a_model_with_an_uncapturable_forward_still_matches_eager(capsys):
    class Chatty(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.body = TinyMLP(width=8, depth=2)

        def forward(self, x):
            print("forward called")
            return self.body(x) * 2

    model = Chatty()
    x = torch.randn(3, 8)
    torch.testing.assert_close(loom.compile(model)(x), model(x))
    assert capsys.readouterr().out == "forward called\nforward called\n"
    # the print splits forward: the submodule is inlined into the resume function's graph
    stats = loom.stats()
    assert stats["graph_breaks"] == 1 and stats["graphs"] == 1 and stats["frames_compiled"] == 2


def test_train_and_eval_modes_are_guarded():
    def make():
        torch.manual_seed(1)
        return torch.nn.Sequential(torch.nn.Linear(6, 6), torch.nn.BatchNorm1d(6), torch.nn.ReLU())

    model, reference = make(), make()
    compiled = loom.compile(model)
    for mode in ("train", "eval", "train", "eval"):
        getattr(compiled, mode)()
        getattr(reference, mode)()
        x = torch.randn(5, 6)
        with torch.no_grad():
            torch.testing.assert_close(compiled(x), reference(x))
    # batch statistics in train mode, running statistics in eval mode: each mode has its own entry
    torch.testing.assert_close(model[1].running_mean, reference[1].running_mean)
    assert loom.stats()["recompiles"] == 1 and loom.stats()["cache_hits"] == 2
