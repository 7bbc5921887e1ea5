"""Real models capture in one graph and match eager."""

import copy

import pytest
import torch
from harness import assert_same, run_rewritten
from models import MLP, ResBlock, TinyGPT

from loom_symbolic import translate_function


def capture_and_compare(model, *inputs, graphs=1):
    """Translate ``model.forward`` for these inputs, run the rewritten code, compare with eager."""
    eager_model = copy.deepcopy(model)
    expected = eager_model(*copy.deepcopy(inputs))
    fn = type(model).forward
    translation = translate_function(fn, model, *inputs)
    assert not translation.breaks, "\n".join(map(str, translation.breaks))
    assert len(translation.graphs) == graphs
    actual = run_rewritten(fn, translation, (model, *inputs), {})
    assert_same(actual, expected)
    # Module state (BatchNorm running stats in train mode) must match too.
    for (name, a), (_, e) in zip(model.state_dict().items(), eager_model.state_dict().items()):
        torch.testing.assert_close(a, e, msg=name)
    return translation


def test_mlp():
    t = capture_and_compare(MLP(), torch.randn(4, 32))
    assert t.graphs[0].op_count >= 5


@pytest.mark.parametrize("training", [False, True])
def test_resnet_block(training):
    block = ResBlock().train(training)
    capture_and_compare(block, torch.randn(2, 8, 8, 8))


def test_gpt_style_transformer():
    model = TinyGPT().eval()
    t = capture_and_compare(model, torch.randint(0, 64, (2, 16)))
    assert t.graphs[0].op_count > 30


def test_huggingface_gpt2():
    transformers = pytest.importorskip("transformers")
    config = transformers.GPT2Config(n_layer=2, n_head=2, n_embd=32, vocab_size=100, n_positions=32)
    model = transformers.GPT2LMHeadModel(config).eval()
    ids = torch.randint(0, 100, (2, 12))
    capture_and_compare(model, ids)


def test_huggingface_bert():
    transformers = pytest.importorskip("transformers")
    config = transformers.BertConfig(
        num_hidden_layers=2, num_attention_heads=2, hidden_size=32, intermediate_size=64, vocab_size=100,
        max_position_embeddings=32,
    )
    model = transformers.BertModel(config).eval()
    ids = torch.randint(0, 100, (2, 12))
    capture_and_compare(model, ids)
